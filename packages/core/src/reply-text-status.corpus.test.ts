import { bounceSuppressesAddress } from './bounce-suppression';
import { enhancedFromBasic, permanentStatusFromText, replyStatus } from './reply-text-status';

// Real-world-style reply texts with no enhanced status code (RFC 3463) where it would be, written
// from what these servers are known to answer, and the code their words give: 5.1.1 (no such
// user, suppresses), 5.2.1 (disabled mailbox), 5.2.2 (mailbox full), 5.3.4 (too big), 5.7.1 (spam,
// block, policy, or about our sender, IP, DNS or relaying: never the recipient's fault), else 5.0.0.
const NO_ENHANCED_CODE: ReadonlyArray<readonly [source: string, code: number, text: string, expected: string]> = [
  ['cPanel Exim', 550, 'No Such User Here', '5.1.1'],
  ['Exim', 550, 'Unrouteable address', '5.1.1'],
  ['Sendmail', 550, '<bob@example.com>... User unknown', '5.1.1'],
  ['Courier', 550, 'User unknown.', '5.1.1'],
  ['MDaemon', 550, '<bob@example.com>, Recipient unknown', '5.1.1'],
  ['Postfix', 550, '<bob@example.com>: Recipient address rejected: User unknown in local recipient table', '5.1.1'],
  ['Postfix', 550, '<bob@example.com>: Recipient address rejected: User unknown in virtual mailbox table', '5.1.1'],
  ['Postfix', 550, '<bob@example.com>: Recipient address rejected: User unknown in relay recipient table', '5.1.1'],
  ['Postfix', 550, '<bob@example.com>: Recipient address rejected: undeliverable address: unknown user: "bob"', '5.1.1'],
  ['Postfix', 550, '<bob@example.com>: Recipient address rejected: undeliverable address: host mx.example.com[192.0.2.10] said: 550 Mailbox not found', '5.1.1'],
  ['qmail', 550, 'sorry, no mailbox here by that name. (#5.1.1)', '5.1.1'],
  ['Yahoo', 554, "delivery error: dd This user doesn't have a yahoo.com account (bob@yahoo.com) [0] - mta4321.mail.bf1.yahoo.com", '5.1.1'],
  ['AOL', 554, "delivery error: dd This user doesn't have a aol.com account (bob@aol.com) [0]", '5.1.1'],
  ['Yahoo (older)', 552, '1 Requested mail action aborted, mailbox not found', '5.1.1'],
  ['GMX / Web.de', 550, 'Requested action not taken: mailbox unavailable', '5.1.1'],
  ['Mail.ru', 550, 'Message was not accepted -- invalid mailbox.  Local mailbox bob@mail.ru is unavailable: user not found', '5.1.1'],
  ['Yandex', 550, 'No such user!', '5.1.1'],
  ['Mimecast', 550, 'Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550 [AbCdEfGh.uk123]', '5.1.1'],
  ['Barracuda', 550, 'No such user (bob@example.com)', '5.1.1'],
  ['Domino', 550, 'bob@example.com... No such user (bob) not listed in Domino Directory', '5.1.1'],
  ['Generic', 550, 'Address does not exist', '5.1.1'],
  ['Generic', 550, 'The mailbox bob@example.com does not exist', '5.1.1'],
  ['Generic', 550, '<bob@example.com>: does not exist', '5.1.1'],
  ['Gmail (in a report)', 550, "The email account that you tried to reach does not exist. Please try double-checking the recipient's email address", '5.1.1'],
  // Disabled, inactive, deactivated: RFC 3463's X.2.1.
  ['Yahoo', 554, 'delivery error: dd Sorry, your message to bob@yahoo.com cannot be delivered. This mailbox is disabled (554.30).', '5.2.1'],
  ['Yahoo (older)', 554, '30 Sorry, your message to bob@yahoo.com cannot be delivered. This account has been disabled or discontinued [#102].', '5.2.1'],
  ['Generic', 550, 'This account is inactive', '5.2.1'],
  ['Generic', 550, 'bob@example.com: mailbox deactivated', '5.2.1'],
  ['Generic', 550, 'Recipient account is no longer active', '5.2.1'],
  // Full, too big.
  ['RFC 5321', 552, 'Requested mail action aborted: exceeded storage allocation', '5.2.2'],
  ['Generic', 552, 'Mailbox full', '5.2.2'],
  ['Yahoo', 554, 'delivery error: dd Sorry your message to bob@yahoo.com cannot be delivered. This account is over quota.', '5.2.2'],
  ['MDaemon', 552, 'Message size exceeds fixed maximum message size', '5.3.4'],
  ['qmail', 552, 'sorry, that message size exceeds my databytes limit (#5.3.4)', '5.3.4'],
  ['Exim', 552, 'Message size exceeds maximum permitted', '5.3.4'],
  // Policy, spam, block lists.
  ['Spamhaus', 554, 'Service unavailable; Client host [203.0.113.7] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.7', '5.7.1'],
  ['Spamhaus', 550, 'Rejected: 203.0.113.7 listed at zen.spamhaus.org', '5.7.1'],
  ['Comcast', 554, 'resimta-po-21v.sys.comcast.net 203.0.113.7 found on one or more DNSBLs, see http://postmaster.comcast.net/smtp-error-codes.php#BL000001', '5.7.1'],
  ['Proofpoint', 554, 'Blocked - see https://ipcheck.proofpoint.com/?ip=203.0.113.7', '5.7.1'],
  ['Barracuda', 550, 'permanent failure for one or more recipients (bob@example.com:blocked)', '5.7.1'],
  ['Mimecast', 554, 'Email rejected due to security policies - https://community.mimecast.com/docs/DOC-1369#554', '5.7.1'],
  ['Mimecast', 550, 'Administrative prohibition - envelope blocked - https://community.mimecast.com/docs/DOC-1369#550', '5.7.1'],
  ['GMX', 554, 'Transaction failed Reject due to policy restrictions. For explanation visit https://postmaster.gmx.net/en/case?c=r0401', '5.7.1'],
  ['Mail.ru', 550, 'spam message rejected. Please visit http://help.mail.ru/notspam-support/id?c=AbCd', '5.7.1'],
  ['Generic', 554, "Your access to this mail system has been rejected due to the sending MTA's poor reputation.", '5.7.1'],
  ['Generic', 554, 'Virus found in message', '5.7.1'],
  // About our side: sender, IP, DNS, HELO, relaying. Never the recipient, whatever else the text quotes.
  ['Exim, sender verify', 550, 'Verification failed for <noreply@example.com> Called: 192.0.2.20 Sent: RCPT TO:<noreply@example.com> Response: 550 No Such User Here Sender verify failed', '5.7.1'],
  ['GMX, sender DNS', 550, 'Requested action not taken: mailbox unavailable invalid DNS MX or A/AAAA resource record', '5.7.1'],
  ['Web.de, sender', 550, 'Requested action not taken: mailbox unavailable Sender address is not allowed.', '5.7.1'],
  ['Postfix', 554, '<bob@example.org>: Relay access denied', '5.7.1'],
  ['Courier', 513, 'Relaying denied.', '5.7.1'],
  ['Zoho', 553, 'Relaying disallowed. Invalid Domain - example.org', '5.7.1'],
  ['qmail', 553, "sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)", '5.7.1'],
  ['Generic', 550, 'Reverse DNS for 203.0.113.7 does not exist', '5.7.1'],
  ['Generic', 550, 'IP address 203.0.113.7 has no PTR record; the address does not exist in DNS', '5.7.1'],
  ['Generic', 550, 'Access denied - Invalid HELO name (See RFC2821 4.1.1.1)', '5.7.1'],
  ['Generic', 550, 'Mailbox unavailable: blocked by policy', '5.7.1'],
  // Nothing to go on.
  ['Gateway', 550, 'Recipient rejected', '5.0.0'],
  ['Generic', 554, 'Transaction failed', '5.0.0'],
  ['Generic', 550, 'Too many hops', '5.0.0'],
  ['Generic', 554, 'Message content rejected', '5.0.0'],
];

describe('enhancedFromBasic on real-world reply texts', () => {
  test.each(NO_ENHANCED_CODE)('%s: "%i %s" is %s', (_source, code, text, expected) => {
    expect(enhancedFromBasic(code, text)).toBe(expected);
  });

  test('the corpus has at least 60 texts', () => {
    expect(NO_ENHANCED_CODE.length).toBeGreaterThanOrEqual(60);
  });

  test.each([
    [450, 'Requested action not taken: mailbox unavailable', '4.0.0'],
    [452, 'Mailbox full', '4.2.2'],
    [451, 'Greylisted, please try again in 300 seconds', '4.0.0'],
    [451, 'temporary failure (#4.3.0)', '4.3.0'],
    // A trailing code of another class than the reply is not taken.
    [550, 'no mailbox here by that name (#4.1.1)', '5.1.1'],
  ] as const)('when a %i says "%s", then it is %s', (code, text, expected) => {
    expect(enhancedFromBasic(code, text)).toBe(expected);
  });
});

describe('permanentStatusFromText on real-world texts without any code', () => {
  test.each([
    ['The email account that you tried to reach does not exist.', '5.1.1'],
    ['Unrouteable address', '5.1.1'],
    ['This account has been disabled or discontinued', '5.2.1'],
    ['The recipient is over quota.', '5.2.2'],
    // Never a missing recipient when the text is about our side or a policy.
    ['Sender verify failed: No Such User Here', null],
    ['Requested action not taken: mailbox unavailable. Sender address is not allowed.', null],
    ['Mailbox unavailable: blocked by policy', null],
    ['Delivery failed.', null],
  ] as const)('"%s" is %s', (text, expected) => {
    expect(permanentStatusFromText(text)).toBe(expected);
  });
});

describe('replyStatus: an enhanced code is taken as written, whatever the words (DESIGN §4)', () => {
  test.each([
    // Microsoft 365's directory-based edge blocking says the recipient does not exist, with 5.4.1:
    // not 5.1.x, so it does not suppress (DESIGN §4 suppresses for 5.1.x only).
    [550, '5.4.1', 'Recipient address rejected: Access denied. AS(201806281) [AM6EUR05FT012.eop-eur05.prod.protection.outlook.com]', '5.4.1'],
    [554, '5.7.1', '<bob@example.com>: Recipient address rejected: Access denied', '5.7.1'],
    // Yandex's "No such user!" comes with 5.7.1, a policy code: never suppressed.
    [550, '5.7.1', 'No such user!', '5.7.1'],
    [550, '5.5.0', 'Requested action not taken: mailbox unavailable (S2017062302)', '5.5.0'],
    [550, '5.2.1', 'The email account that you tried to reach is disabled.', '5.2.1'],
    // Without an enhanced code, the text decides.
    [550, null, 'No such user here', '5.1.1'],
    [550, null, 'Mailbox disabled, not accepting messages', '5.2.1'],
    [null, null, 'whatever', null],
  ] as const)('when %s %s says "%s", then it is classified as %s', (code, enhanced, text, expected) => {
    expect(replyStatus(code, enhanced, text)).toBe(expected);
  });
});

describe('a disabled mailbox (5.2.1) never suppresses: only 5.1.x does', () => {
  test.each(['5.2.1', '5.2.2', '4.2.1'])('%s', (code) => {
    expect(bounceSuppressesAddress(code, 'Mailbox disabled')).toBe(false);
  });
});

// Catastrophic backtracking would take seconds on 50 KB (quadratic: billions of steps); linear
// patterns take milliseconds, however slow the machine.
describe('the patterns stay linear on hostile texts', () => {
  test.each([
    ['repeated keywords', 'user mailbox recipient account address '.repeat(1_250)],
    ['a long address-like run', `${'a.'.repeat(25_000)}x`],
    ['brackets without end', `[${'x'.repeat(50_000)}`],
    ['dots and letters', 'ab.'.repeat(17_000)],
  ])('%s (50 KB) is read quickly', (_name, text) => {
    const start = performance.now();
    enhancedFromBasic(550, text);
    permanentStatusFromText(text);
    replyStatus(550, '5.4.1', text);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
