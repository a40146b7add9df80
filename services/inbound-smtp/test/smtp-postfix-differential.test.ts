import { PrivatePostfix } from '../../../test/support/postfix';
import { RawSmtp, seedProject, startTestMx, type TestMx } from './smtp-support';

/**
 * A differential test of the MX's SMTP dialogue against Postfix's smtpd, the most widely
 * deployed MX: the same raw command sequences (what real MTAs and clients send, and what
 * fuzzers send) go to both over plain TCP, and each reply's class (2xx, 3xx, 4xx, 5xx, or the
 * connection closed) must agree, its full code too where the RFCs fix it. Where they differ on
 * purpose, ACCEPTED_DIFFERENCES says so with the exact codes of both, and why: a difference
 * that disappears fails the test as well, so the table stays true.
 *
 * Postfix is a private instance (test/support/postfix.ts) set up as an MX for the same address
 * as ours: a virtual mailbox domain acme.test with `support` (and `postmaster`), unknown local
 * parts refused at RCPT, no relaying for the test's 127.0.0.1, the extensions our EHLO offers
 * (no DSN, CHUNKING or ETRN), and the defaults of Postfix ≥ 3.9 where Debian's 3.7 differs.
 */

const MAX_BYTES = 1_000_000;
const REPLY_TIMEOUT_MS = 3_000;

/** A reply's code, or `closed` when the server closed the connection instead of answering. */
type Code = string;

interface Step {
  /** Bytes written at once (one command line, several pipelined, or message content). */
  write: Buffer;
  /** One label per reply the step expects, in order; the table refers to steps by label. */
  labels: string[];
  /** The codes the RFCs allow for this reply, when they fix it: both servers must answer one. */
  codes?: readonly number[];
}

interface Sequence {
  name: string;
  steps: Step[];
}

/** A difference kept on purpose: the exact code each server answers, and why ours stands. */
interface AcceptedDifference {
  sequence: string;
  step: string;
  ours: Code;
  postfix: Code;
  reason: string;
}

/** One command line (CRLF added), one reply. */
function line(command: string, codes?: readonly number[], label = command): Step {
  return { write: Buffer.from(`${command}\r\n`, 'utf8'), labels: [label], codes };
}

/** Commands pipelined in one write (RFC 2920), one reply each. */
function pipelined(commands: string[]): Step {
  return { write: Buffer.from(commands.map((c) => `${c}\r\n`).join(''), 'utf8'), labels: commands };
}

/** Raw bytes as given (bare LFs, NULs, message content), one reply. */
function raw(bytes: string | Buffer, label: string, codes?: readonly number[]): Step {
  return { write: typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes, labels: [label], codes };
}

const EHLO = line('EHLO client.example.test', [250]);
const MAIL = line('MAIL FROM:<ann@example.test>', [250]);
const RCPT = line('RCPT TO:<support@acme.test>', [250]);
const DATA = line('DATA', [354]);
const QUIT = line('QUIT', [221]);
/** A message as a client sends it after 354, final dot included. */
const MESSAGE = raw('Subject: differential\r\n\r\nHello.\r\n.\r\n', 'message', [250]);

/** The command sequences, each on a connection of its own to each server. */
const SEQUENCES: Sequence[] = [
  { name: 'EHLO and a whole transaction', steps: [EHLO, MAIL, RCPT, DATA, MESSAGE, QUIT] },
  { name: 'HELO instead of EHLO', steps: [line('HELO client.example.test', [250]), MAIL, RCPT, DATA, MESSAGE, QUIT] },
  { name: 'MAIL and RCPT with no HELO or EHLO first', steps: [MAIL, RCPT, QUIT] },
  {
    name: 'EHLO and HELO without a domain, then with address literals',
    steps: [line('EHLO', [501]), line('HELO', [501]), line('EHLO [192.0.2.1]', [250]), line('HELO [IPv6:2001:db8::1]', [250]), QUIT],
  },
  { name: 'HELO and EHLO with two words', steps: [line('HELO client example'), line('EHLO client example'), EHLO, QUIT] },
  {
    name: 'a space after the colon (Outlook)',
    steps: [EHLO, line('MAIL FROM: <ann@example.test>', [250]), line('RCPT TO: <support@acme.test>', [250]), DATA, MESSAGE, QUIT],
  },
  { name: 'MAIL FROM without angle brackets', steps: [EHLO, line('MAIL FROM:ann@example.test'), QUIT] },
  { name: 'RCPT TO without angle brackets', steps: [EHLO, MAIL, line('RCPT TO:support@acme.test'), QUIT] },
  { name: 'the null reverse-path', steps: [EHLO, line('MAIL FROM:<>', [250]), RCPT, DATA, MESSAGE, QUIT] },
  {
    name: 'the null reverse-path with spaces around and inside it',
    steps: [EHLO, line('MAIL FROM: <>', [250]), line('RSET', [250]), line('MAIL FROM:<> ', [250]), line('RSET', [250]), line('MAIL FROM:< >'), QUIT],
  },
  {
    name: 'SIZE, BODY=8BITMIME and SMTPUTF8 together',
    steps: [EHLO, line('MAIL FROM:<ann@example.test> SIZE=1000 BODY=8BITMIME SMTPUTF8', [250]), RCPT, DATA, MESSAGE, QUIT],
  },
  {
    name: 'SIZE over the limit, at it, and malformed',
    steps: [
      EHLO,
      line(`MAIL FROM:<ann@example.test> SIZE=${MAX_BYTES + 1}`, [552]),
      line('MAIL FROM:<> SIZE=999999999999', [552]),
      line('MAIL FROM:<ann@example.test> SIZE=abc', [501]),
      line(`MAIL FROM:<ann@example.test> SIZE=${MAX_BYTES}`, [250]),
      QUIT,
    ],
  },
  {
    name: 'BODY values, in any case',
    steps: [
      EHLO,
      line('MAIL FROM:<ann@example.test> BODY=7BIT', [250]),
      line('RSET', [250]),
      line('mail from:<ann@example.test> body=8bitmime', [250]),
      line('RSET', [250]),
      line('MAIL FROM:<ann@example.test> BODY=BINARYMIME'),
      QUIT,
    ],
  },
  {
    name: 'parameters of no extension',
    steps: [EHLO, line('MAIL FROM:<ann@example.test> FOO=bar', [555]), line('MAIL FROM:<ann@example.test> SMTPUTF8=yes'), MAIL, line('RCPT TO:<support@acme.test> FOO=1', [555]), RCPT, QUIT],
  },
  {
    name: 'DSN parameters (RET, ENVID, NOTIFY, ORCPT) without DSN offered',
    steps: [
      EHLO,
      line('MAIL FROM:<ann@example.test> RET=HDRS', [555]),
      line('MAIL FROM:<ann@example.test> ENVID=QQ314159', [555]),
      MAIL,
      line('RCPT TO:<support@acme.test> NOTIFY=SUCCESS,FAILURE', [555]),
      line('RCPT TO:<support@acme.test> ORCPT=rfc822;support@acme.test', [555]),
      RCPT,
      QUIT,
    ],
  },
  { name: 'a parameter given twice', steps: [EHLO, line('MAIL FROM:<ann@example.test> SIZE=10 SIZE=20'), QUIT] },
  {
    name: 'quoted local parts',
    steps: [
      EHLO,
      line('MAIL FROM:<"john doe"@example.test>', [250]),
      line('RCPT TO:<"support"@acme.test>', [250]),
      line('RCPT TO:<"john doe"@acme.test>'),
      line('RCPT TO:<"open@acme.test>', [501]),
      DATA,
      MESSAGE,
      QUIT,
    ],
  },
  {
    name: 'source routes (RFC 5321 appendix C)',
    steps: [EHLO, line('MAIL FROM:<@relay.example.test:ann@example.test>', [250]), line('RCPT TO:<@a.example.test,@b.example.test:support@acme.test>', [250]), DATA, MESSAGE, QUIT],
  },
  {
    name: 'address literals in MAIL FROM',
    steps: [
      EHLO,
      line('MAIL FROM:<ann@[192.0.2.1]>', [250]),
      line('RSET', [250]),
      line('MAIL FROM:<ann@[IPv6:2001:db8::1]>', [250]),
      line('RSET', [250]),
      line('MAIL FROM:<ann@[300.1.1.1]>', [501]),
      QUIT,
    ],
  },
  {
    name: 'address literals in RCPT TO',
    steps: [
      EHLO,
      MAIL,
      line('RCPT TO:<support@[127.0.0.1]>'),
      line('RCPT TO:<support@[192.0.2.1]>'),
      line('RCPT TO:<support@[IPv6:2001:db8::1]>'),
      line('RCPT TO:<postmaster@[127.0.0.1]>'),
      QUIT,
    ],
  },
  { name: 'a trailing dot in the MAIL FROM domain', steps: [EHLO, line('MAIL FROM:<ann@example.test.>'), QUIT] },
  { name: 'a trailing dot in the RCPT TO domain', steps: [EHLO, MAIL, line('RCPT TO:<support@acme.test.>'), QUIT] },
  {
    name: 'UTF-8 addresses with SMTPUTF8',
    steps: [
      EHLO,
      line('MAIL FROM:<jürgen@example.test> SMTPUTF8', [250]),
      RCPT,
      line('RCPT TO:<jürgen@acme.test>'),
      DATA,
      raw('From: Jürgen <jürgen@example.test>\r\nSubject: Grüße\r\n\r\nGrüße.\r\n.\r\n', 'message', [250]),
      QUIT,
    ],
  },
  {
    name: 'UTF-8 addresses without SMTPUTF8',
    // RFC 6531 §3.4: 553 5.6.7 (Postfix with strict_smtputf8); the RCPTs then have no transaction.
    steps: [EHLO, line('MAIL FROM:<jürgen@example.test>', [553]), line('RCPT TO:<support@acme.test>', [503]), line('RCPT TO:<support@bücher.test>'), QUIT],
  },
  {
    name: 'lower and mixed case commands, lower-case data',
    steps: [
      line('ehlo client.example.test', [250]),
      line('mail from:<ann@example.test>', [250]),
      line('RcPt To:<support@acme.test>', [250]),
      line('data', [354]),
      MESSAGE,
      line('noop', [250]),
      line('quit', [221]),
    ],
  },
  {
    name: 'RSET mid-transaction',
    steps: [EHLO, MAIL, RCPT, line('RSET', [250]), line('DATA', [503]), line('RCPT TO:<support@acme.test>', [503], 'RCPT after RSET'), MAIL, RCPT, DATA, MESSAGE, QUIT],
  },
  {
    name: 'NOOP, RSET and QUIT with an argument',
    steps: [EHLO, line('NOOP hello there', [250]), MAIL, line('RSET now', [501]), line('RCPT TO:<support@acme.test>', [250]), line('QUIT now', [221])],
  },
  { name: 'HELP', steps: [EHLO, line('HELP'), line('HELP MAIL'), QUIT] },
  {
    name: 'VRFY',
    steps: [EHLO, line('VRFY support@acme.test', [252]), line('VRFY nobody@acme.test'), line('VRFY support'), line('VRFY', [501]), QUIT],
  },
  { name: 'EXPN', steps: [EHLO, line('EXPN support'), line('EXPN'), MAIL, QUIT] },
  { name: 'a second MAIL without RSET', steps: [EHLO, MAIL, line('MAIL FROM:<bob@example.test>', [503]), RCPT, DATA, MESSAGE, QUIT] },
  { name: 'RCPT before MAIL', steps: [EHLO, line('RCPT TO:<support@acme.test>', [503]), QUIT] },
  // RFC 5321 §3.3: DATA without a valid recipient is 503 (bad sequence) or 554 (no valid recipients).
  { name: 'DATA before RCPT', steps: [EHLO, MAIL, line('DATA', [503, 554]), RCPT, line('DATA', [354], 'DATA again'), MESSAGE, QUIT] },
  { name: 'DATA with an argument', steps: [EHLO, MAIL, RCPT, line('DATA now', [501]), DATA, MESSAGE, QUIT] },
  {
    name: 'command lines of 2 KB',
    steps: [
      EHLO,
      line(`NOOP ${'x'.repeat(2048)}`, [250], 'NOOP x×2048'),
      line(`MAIL FROM:<${'a'.repeat(2048)}@example.test>`, [501], 'MAIL FROM a 2 KB local part'),
      line(`MAIL FROM:<ann@example.test>${' '.repeat(2048)}`, [250], 'MAIL FROM and 2 KB of spaces'),
      line(`RCPT TO:<${'a'.repeat(65)}@acme.test>`, undefined, 'RCPT TO a 65-octet local part'),
      line(`RCPT TO:<support@${'a'.repeat(250)}.test>`, [501], 'RCPT TO a 255-octet domain'),
      QUIT,
    ],
  },
  {
    name: 'bare LF line endings in commands',
    steps: [
      raw('EHLO client.example.test\n', 'EHLO', [250]),
      raw('MAIL FROM:<ann@example.test>\n', 'MAIL', [250]),
      raw('RCPT TO:<support@acme.test>\n', 'RCPT', [250]),
      raw('DATA\n', 'DATA', [354]),
      MESSAGE,
      raw('QUIT\n', 'QUIT', [221]),
    ],
  },
  {
    name: 'a NUL byte in a command',
    steps: [EHLO, raw('MAIL FROM:<ann\0@example.test>\r\n', 'MAIL FROM with a NUL', [501]), raw('NO\0OP\r\n', 'NOOP with a NUL', [500]), line('NOOP', [250]), QUIT],
  },
  {
    name: 'TAB as a separator',
    steps: [
      EHLO,
      line('MAIL\tFROM:<ann@example.test>'),
      line('RSET', [250]),
      line('NOOP\tnow'),
      line('MAIL FROM:<ann@example.test>\tSIZE=10', [250]),
      line('RCPT TO:\t<support@acme.test>', [250]),
      QUIT,
    ],
  },
  // RFC 5321 §4.1.1: "SMTP receivers SHOULD tolerate trailing white space before the terminating <CRLF>".
  {
    name: 'trailing white space after a command',
    steps: [EHLO, line('NOOP\t', [250]), line('MAIL FROM:<ann@example.test> \t', [250]), line('RSET\t', [250]), line('QUIT \t', [221])],
  },
  { name: 'QUIT with pipelined junk after it', steps: [EHLO, pipelined(['QUIT', 'NOOP', 'MAIL FROM:<ann@example.test>'])] },
  { name: 'BDAT without CHUNKING offered', steps: [EHLO, MAIL, RCPT, raw('BDAT 5 LAST\r\nhello', 'BDAT 5 LAST'), line('NOOP')] },
  { name: 'STARTTLS when not offered', steps: [EHLO, line('STARTTLS'), line('NOOP', [250]), QUIT] },
  { name: 'AUTH when not offered', steps: [EHLO, line('AUTH PLAIN AGFubgBzZWNyZXQ='), line('AUTH LOGIN'), MAIL, QUIT] },
  {
    name: 'pipelined MAIL, RCPT and DATA with one bad RCPT',
    steps: [EHLO, pipelined(['MAIL FROM:<ann@example.test>', 'RCPT TO:<nobody@acme.test>', 'RCPT TO:<support@acme.test>', 'DATA']), MESSAGE, QUIT],
  },
  {
    name: 'pipelined MAIL, RCPT and DATA whose only RCPT is refused, and content sent without waiting for 354',
    steps: [EHLO, pipelined(['MAIL FROM:<ann@example.test>', 'RCPT TO:<nobody@acme.test>', 'DATA', 'Hello.', '.']), QUIT],
  },
  { name: 'commands pipelined after EHLO', steps: [pipelined(['EHLO client.example.test', 'MAIL FROM:<ann@example.test>']), QUIT] },
  {
    name: 'a lone dot after a bare LF in the body (SMTP smuggling)',
    steps: [EHLO, MAIL, RCPT, DATA, raw('Subject: smuggling\r\n\r\nHello.\n.\nRCPT TO:<support@acme.test>\r\n\r\n.\r\n', 'message', [250]), line('NOOP', [250]), QUIT],
  },
  {
    name: 'a lone dot ended by a bare LF in the body (SMTP smuggling)',
    steps: [EHLO, MAIL, RCPT, DATA, raw('Subject: smuggling\r\n\r\nHello.\r\n.\nRCPT TO:<support@acme.test>\r\n\r\n.\r\n', 'message', [250]), line('NOOP', [250]), QUIT],
  },
  {
    name: 'a lone dot between bare CRs in the body (SMTP smuggling)',
    steps: [EHLO, MAIL, RCPT, DATA, raw('Subject: smuggling\r\n\r\nHello.\r.\rRCPT TO:<support@acme.test>\r\n\r\n.\r\n', 'message', [250]), line('NOOP', [250]), QUIT],
  },
  {
    name: 'bare LF lines in the body',
    steps: [EHLO, MAIL, RCPT, DATA, raw('Subject: bare LF\n\nline one\nline two\r\n.\r\n', 'message', [250]), QUIT],
  },
  {
    name: 'an 8-bit body without BODY=8BITMIME',
    steps: [EHLO, MAIL, RCPT, DATA, raw(Buffer.from('Subject: caf\xe9\r\n\r\n\xe9t\xe9 \xff\r\n.\r\n', 'latin1'), 'message', [250]), QUIT],
  },
  { name: 'an HTTP request', steps: [raw('GET / HTTP/1.1\r\nHost: mx.acme.test\r\n\r\n', 'GET / HTTP/1.1'), line('NOOP')] },
  {
    name: 'recipients: case, +tag, postmaster, unknown, another domain',
    steps: [
      EHLO,
      MAIL,
      line('RCPT TO:<Support@ACME.TEST>', [250]),
      line('RCPT TO:<support+tag@acme.test>', [250]),
      line('RCPT TO:<postmaster>', [250]),
      line('RCPT TO:<postmaster@acme.test>', [250]),
      line('RCPT TO:<nobody@acme.test>'),
      line('RCPT TO:<someone@elsewhere.test>'),
      DATA,
      MESSAGE,
      QUIT,
    ],
  },
  {
    name: 'ETRN, TURN, unknown commands and an empty line',
    steps: [EHLO, line('ETRN acme.test'), line('TURN'), line('XYZZY', [500]), line(''), line('NOOP', [250]), QUIT],
  },
  { name: 'EHLO mid-transaction resets it', steps: [EHLO, MAIL, RCPT, line('EHLO again.example.test', [250]), line('DATA', [503]), QUIT] },
];

/**
 * Where the two differ on purpose. Each line is checked as written: ours and Postfix must give
 * exactly these codes, so a fix on either side fails the test until the line goes.
 */
const ACCEPTED_DIFFERENCES: AcceptedDifference[] = [
  {
    sequence: 'MAIL and RCPT with no HELO or EHLO first',
    step: 'MAIL FROM:<ann@example.test>',
    ours: '503',
    postfix: '250',
    reason: 'RFC 5321 §4.1.4: a client MUST send EHLO or HELO before a transaction; Postfix lets it go by its default smtpd_helo_required = no',
  },
  {
    sequence: 'MAIL and RCPT with no HELO or EHLO first',
    step: 'RCPT TO:<support@acme.test>',
    ours: '503',
    postfix: '250',
    reason: 'the same: no transaction was begun here, so RCPT is out of sequence',
  },
  {
    sequence: 'HELO and EHLO with two words',
    step: 'HELO client example',
    ours: '501',
    postfix: '250',
    reason: 'RFC 5321 §4.1.1.1: the argument is one Domain or address literal; Postfix takes anything (no smtpd_helo_restrictions)',
  },
  {
    sequence: 'HELO and EHLO with two words',
    step: 'EHLO client example',
    ours: '501',
    postfix: '250',
    reason: 'the same for EHLO',
  },
  {
    sequence: 'MAIL FROM without angle brackets',
    step: 'MAIL FROM:ann@example.test',
    ours: '501',
    postfix: '250',
    reason: 'RFC 5321 §4.1.2: a Reverse-path is "<" … ">"; Postfix takes a bare address only because strict_rfc821_envelopes = no, a leniency for broken clients',
  },
  {
    sequence: 'RCPT TO without angle brackets',
    step: 'RCPT TO:support@acme.test',
    ours: '501',
    postfix: '250',
    reason: 'RFC 5321 §4.1.2: a Forward-path is "<" … ">" (Postfix: strict_rfc821_envelopes = no)',
  },
  {
    sequence: 'the null reverse-path with spaces around and inside it',
    step: 'MAIL FROM:< >',
    ours: '501',
    postfix: '250',
    reason: 'RFC 5321 §4.1.2: the null reverse-path is "<>", nothing inside; Postfix’s address tokenizer drops the space',
  },
  {
    sequence: 'DSN parameters (RET, ENVID, NOTIFY, ORCPT) without DSN offered',
    step: 'MAIL FROM:<ann@example.test> RET=HDRS',
    ours: '555',
    postfix: '501',
    reason: 'RFC 5321 §4.1.1.11: a parameter the server does not implement is 555; Postfix with DSN discarded answers 501 5.7.1',
  },
  {
    sequence: 'DSN parameters (RET, ENVID, NOTIFY, ORCPT) without DSN offered',
    step: 'MAIL FROM:<ann@example.test> ENVID=QQ314159',
    ours: '555',
    postfix: '501',
    reason: 'the same for ENVID',
  },
  {
    sequence: 'DSN parameters (RET, ENVID, NOTIFY, ORCPT) without DSN offered',
    step: 'RCPT TO:<support@acme.test> NOTIFY=SUCCESS,FAILURE',
    ours: '555',
    postfix: '501',
    reason: 'the same for NOTIFY',
  },
  {
    sequence: 'DSN parameters (RET, ENVID, NOTIFY, ORCPT) without DSN offered',
    step: 'RCPT TO:<support@acme.test> ORCPT=rfc822;support@acme.test',
    ours: '555',
    postfix: '501',
    reason: 'the same for ORCPT',
  },
  {
    sequence: 'a parameter given twice',
    step: 'MAIL FROM:<ann@example.test> SIZE=10 SIZE=20',
    ours: '501',
    postfix: '250',
    reason: 'which of the two holds is a guess (RFC 3461 §4 forbids repeating its own parameters); no real client repeats one, Postfix takes it',
  },
  {
    sequence: 'address literals in RCPT TO',
    step: 'RCPT TO:<postmaster@[127.0.0.1]>',
    ours: '550',
    postfix: '250',
    reason: 'Postfix treats its own address literal as a local domain; routes name domains, and behind a balancer the MX does not know the address dialled',
  },
  {
    sequence: 'a trailing dot in the MAIL FROM domain',
    step: 'MAIL FROM:<ann@example.test.>',
    ours: '501',
    postfix: '250',
    reason: 'RFC 5321 §4.1.2: Domain = sub-domain *("." sub-domain), no trailing dot; Postfix strips it',
  },
  {
    sequence: 'a trailing dot in the RCPT TO domain',
    step: 'RCPT TO:<support@acme.test.>',
    ours: '501',
    postfix: '250',
    reason: 'the same in a Forward-path',
  },
  {
    sequence: 'HELP',
    step: 'HELP',
    ours: '214',
    postfix: '500',
    reason: 'HELP is optional (not in RFC 5321 §4.5.1’s minimum); smtp-server answers it, Postfix does not know it',
  },
  {
    sequence: 'HELP',
    step: 'HELP MAIL',
    ours: '214',
    postfix: '500',
    reason: 'the same with an argument (RFC 5321 §4.1.1.8)',
  },
  {
    sequence: 'VRFY',
    step: 'VRFY nobody@acme.test',
    ours: '252',
    postfix: '550',
    reason: 'RFC 5321 §3.5.3 and §7.3: 252 verifies nothing, so VRFY cannot harvest addresses; Postfix verifies (disable_vrfy_command = no)',
  },
  {
    sequence: 'VRFY',
    step: 'VRFY support',
    ours: '252',
    postfix: '554',
    reason: 'the same: Postfix refuses a bare name as a relay it would not do (554)',
  },
  {
    sequence: 'TAB as a separator',
    step: 'MAIL\tFROM:<ann@example.test>',
    ours: '500',
    postfix: '250',
    reason: 'RFC 5321 §4.1.1: a verb is followed by SP; only trailing white space SHOULD be tolerated, and Postfix splits at any white space',
  },
  {
    sequence: 'TAB as a separator',
    step: 'NOOP\tnow',
    ours: '500',
    postfix: '250',
    reason: 'the same for NOOP',
  },
  {
    sequence: 'pipelined MAIL, RCPT and DATA whose only RCPT is refused, and content sent without waiting for 354',
    step: 'Hello.',
    ours: '500',
    postfix: 'closed',
    reason: 'RFC 2920 §3.1 binds the client (content only after 354); Postfix ≥ 3.9 drops it (smtpd_forbid_unauth_pipelining), ours answers each line as a command',
  },
  {
    sequence: 'pipelined MAIL, RCPT and DATA whose only RCPT is refused, and content sent without waiting for 354',
    step: '.',
    ours: '500',
    postfix: 'closed',
    reason: 'the same',
  },
  {
    sequence: 'pipelined MAIL, RCPT and DATA whose only RCPT is refused, and content sent without waiting for 354',
    step: 'QUIT',
    ours: '221',
    postfix: 'closed',
    reason: 'the same',
  },
  {
    sequence: 'commands pipelined after EHLO',
    step: 'EHLO client.example.test',
    ours: '250',
    postfix: '554',
    reason: 'RFC 2920 §3.1: EHLO ends a group, a rule for the client; Postfix ≥ 3.9 drops such clients as spambots, ours serves them (no mail lost)',
  },
  {
    sequence: 'commands pipelined after EHLO',
    step: 'MAIL FROM:<ann@example.test>',
    ours: '250',
    postfix: 'closed',
    reason: 'the same',
  },
  {
    sequence: 'commands pipelined after EHLO',
    step: 'QUIT',
    ours: '221',
    postfix: 'closed',
    reason: 'the same',
  },
  {
    sequence: 'an HTTP request',
    step: 'GET / HTTP/1.1',
    ours: '421',
    postfix: '221',
    reason: 'both hang up on a browser’s cross-protocol request; which code precedes that is each one’s choice (smtp-server 421, Postfix’s smtpd_forbidden_commands 221)',
  },
  {
    sequence: 'ETRN, TURN, unknown commands and an empty line',
    step: 'ETRN acme.test',
    ours: '502',
    postfix: '459',
    reason: 'Postfix implements ETRN (RFC 1985: 459 for a domain it queues nothing for), even with the keyword discarded; the MX queues for nobody',
  },
];

function codeOf(reply: string): Code {
  return reply === '' ? 'closed' : reply.slice(0, 3);
}

function classOf(code: Code): string {
  return /^\d{3}$/.test(code) ? `${code[0]}xx` : code;
}

interface Row {
  label: string;
  codes?: readonly number[];
  ours: string;
  postfix: string;
}

/** Plays a sequence on a new connection: the greeting's reply, then one per label, in order. */
async function play(port: number, steps: Step[]): Promise<string[]> {
  const smtp = await RawSmtp.open(port);
  const read = () => smtp.reply(REPLY_TIMEOUT_MS).catch((err: Error) => `(no reply: ${err.message})`);
  try {
    const replies = [await read()];
    for (const step of steps) {
      smtp.write(step.write);
      for (const _ of step.labels) replies.push(await read());
    }
    return replies;
  } finally {
    smtp.end();
  }
}

/** Why a row is wrong, or null: a table line must hold exactly, any other reply must agree. */
function problem(row: Row, accepted: AcceptedDifference | undefined): string | null {
  const ours = codeOf(row.ours);
  const postfix = codeOf(row.postfix);
  const seen = `ours ${JSON.stringify(row.ours)}, Postfix ${JSON.stringify(row.postfix)}`;
  if (accepted) {
    return ours === accepted.ours && postfix === accepted.postfix ? null : `${row.label}: the table says ours ${accepted.ours}, Postfix ${accepted.postfix}; got ${seen}`;
  }
  if (row.codes) {
    const allowed = row.codes.map(String);
    return allowed.includes(ours) && allowed.includes(postfix) ? null : `${row.label}: the RFCs allow ${row.codes.join(' or ')}; got ${seen}`;
  }
  return classOf(ours) === classOf(postfix) && !ours.startsWith('(') ? null : `${row.label}: classes differ; got ${seen}`;
}

describe('the MX against Postfix, command sequence by command sequence', () => {
  let t: TestMx;
  let postfix: PrivatePostfix;

  beforeAll(async () => {
    t = await startTestMx({ label: 'smtpdifferential', env: { SMTP_HOSTNAME: 'mx.acme.test', INBOUND_MAX_MESSAGE_BYTES: String(MAX_BYTES) } });
    await seedProject(t.pool, ['support@acme.test']);
    postfix = await PrivatePostfix.start({
      hostname: 'mx.postfix.test',
      mailboxDomain: 'acme.test',
      // RFC 5321 §4.5.1: postmaster at a served domain (ours: the domain's route takes it).
      mailboxes: ['support', 'postmaster'],
      settings: {
        // An MX for the world: the test's 127.0.0.1 is not a trusted network and may not relay.
        mynetworks: '192.0.2.254/32',
        // Unknown local parts of acme.test are refused at RCPT (postfix.ts takes them and bounces).
        smtpd_reject_unlisted_recipient: 'yes',
        // As routes: support@ also receives support+tag@.
        recipient_delimiter: '+',
        // The extensions our EHLO offers: not DSN, CHUNKING or ETRN, which Postfix offers by default.
        smtpd_discard_ehlo_keywords: 'silent-discard, dsn, chunking, etrn',
        message_size_limit: String(MAX_BYTES),
        // Its own address literal is a local domain: postmaster only (postfix.ts's map takes any).
        local_recipient_maps: 'inline:{postmaster=postmaster}',
        // Defaults of Postfix ≥ 3.9 (Debian's 3.7 has both off): only CRLF.CRLF ends DATA
        // (the SMTP smuggling fix), and clients that pipeline where RFC 2920 forbids are dropped.
        smtpd_forbid_bare_newline: 'normalize',
        smtpd_forbid_unauth_pipelining: 'yes',
        // A UTF-8 address only with SMTPUTF8 (RFC 6531 §3.4), as the MX answers: Postfix's default
        // takes a UTF-8 local part without it, and refuses a U-label domain with 501.
        smtputf8_enable: 'yes',
        strict_smtputf8: 'yes',
        // Defaults the table depends on, pinned.
        smtpd_helo_required: 'no',
        strict_rfc821_envelopes: 'no',
        disable_vrfy_command: 'no',
      },
    });
  }, 60_000);

  afterAll(async () => {
    await postfix?.stop();
    await t?.close();
  }, 30_000);

  test('every sequence has a name of its own, every label a table line names is unique in its sequence, and every table line is a difference', () => {
    expect(SEQUENCES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(SEQUENCES.map((s) => s.name)).size).toBe(SEQUENCES.length);
    for (const accepted of ACCEPTED_DIFFERENCES) {
      const sequence = SEQUENCES.find((s) => s.name === accepted.sequence);
      const labels = sequence?.steps.flatMap((s) => s.labels).filter((label) => label === accepted.step) ?? [];
      expect([accepted.sequence, accepted.step, labels.length]).toEqual([accepted.sequence, accepted.step, 1]);
      expect([accepted.step, accepted.ours === accepted.postfix]).toEqual([accepted.step, false]);
      expect(accepted.reason.length).toBeGreaterThan(0);
    }
  });

  test.each(SEQUENCES.map((s) => [s.name, s] as const))('%s', async (_name, sequence) => {
    const [ours, theirs] = await Promise.all([play(t.mx.port, sequence.steps), play(postfix.port, sequence.steps)]);
    const labels = [{ label: '(greeting)', codes: [220] as readonly number[] }, ...sequence.steps.flatMap((s) => s.labels.map((label) => ({ label, codes: s.codes })))];
    const rows: Row[] = labels.map(({ label, codes }, i) => ({ label, codes, ours: ours[i] ?? '', postfix: theirs[i] ?? '' }));
    const problems = rows.flatMap((row) => {
      const accepted = ACCEPTED_DIFFERENCES.find((d) => d.sequence === sequence.name && d.step === row.label);
      return problem(row, accepted) ?? [];
    });
    expect(problems).toEqual([]);
  });
});
