import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyBounce, type Report, readReport } from '../src/feedback/read-report';
import { reportOutcome } from '../src/processing/feedback-outcome';

// Automatic replies against bounces that look like them (feedback-corpus-auto/, written for
// this test from what each sender is known to send). An automatic reply must give no outcome;
// a bounce must stay a bounce whatever Auto-Submitted, Precedence or X-Auto-Response-Suppress
// it carries. A DSN row is [status, action, event, bounce type, the address the report names].
const CORPUS = join(__dirname, 'feedback-corpus-auto');

type Row = [string | null, string, string | null, string | null, string | null];
type Expectation = { file: string; kind: 'auto-reply' | 'unknown' } | { file: string; kind: 'dsn'; format: string; recipient: Row };

const AUTO = (file: string): Expectation => ({ file, kind: 'auto-reply' });

const EXPECTED: Expectation[] = [
  // Out-of-office replies: Exchange/Outlook in eight languages, webmail and server vacation.
  AUTO('ooo-exchange-online-en.eml'),
  AUTO('ooo-exchange-de-html.eml'),
  AUTO('ooo-exchange-fr-latin1.eml'),
  AUTO('ooo-exchange-es.eml'),
  AUTO('ooo-exchange-nl.eml'),
  AUTO('ooo-exchange-it.eml'),
  AUTO('ooo-exchange-pl.eml'),
  // An Outlook client-side rule: no header mark at all, only the subject (ISO-2022-JP encoded).
  AUTO('ooo-outlook-ja-iso2022.eml'),
  AUTO('ooo-gmail-vacation.eml'),
  // Old responders (vacation(1), Gmail's of old, OTRS, Spam Arrest) mark their replies only with
  // `Precedence: bulk`/`junk`, the header RFC 3834 §3.1.8 names as the one they used; from a
  // sender that does not look like a bounce, with no SMTP reply quoted, that is not a report.
  AUTO('ooo-gmail-vacation-re-subject-precedence-bulk.eml'),
  AUTO('ooo-unix-vacation1-precedence-junk.eml'),
  AUTO('ooo-zimbra.eml'),
  AUTO('ooo-yahoo.eml'),
  AUTO('ooo-icloud.eml'),
  AUTO('ooo-sieve-vacation-rfc5230.eml'),
  AUTO('ooo-thunderbird-sieve-custom-subject.eml'),
  AUTO('ooo-postfixadmin-vacation.eml'),
  // The echoed original subject has bounce words ("nicht zustellbar", "non remis"), and the text
  // has an extension number or a room number that reads like a reply code.
  AUTO('ooo-de-subject-echoes-nicht-zustellbar.eml'),
  AUTO('ooo-fr-subject-echoes-non-remis.eml'),
  // Misconfigured servers answering from postmaster@ / MAILER-DAEMON@ with a vacation subject.
  AUTO('ooo-from-postmaster-misconfigured.eml'),
  AUTO('ooo-from-mailer-daemon-out-of-office.eml'),
  // Helpdesk acknowledgements; one says "complaint about" and quotes the original's Message-ID.
  AUTO('helpdesk-zendesk-request-received.eml'),
  AUTO('helpdesk-freshdesk-autorespond.eml'),
  AUTO('helpdesk-complaint-ack-quotes-original.eml'),
  AUTO('helpdesk-otrs-precedence-bulk-only.eml'),
  // Challenge-response.
  AUTO('challenge-tmda-confirm.eml'),
  AUTO('challenge-spamarrest-precedence-bulk.eml'),
  // Debatable, kept as README's footnote says: with no mark at all (no Auto-Submitted, no
  // Precedence, no vacation subject) nothing tells it from an unreadable bounce in a language
  // we do not know, and an unreadable bounce must not be dropped.
  { file: 'challenge-unmarked-are-you-human.eml', kind: 'unknown' },

  // Real bounces that carry auto-reply marks.
  { file: 'bounce-postfix-dsn-auto-replied.eml', kind: 'dsn', format: 'rfc3464', recipient: ['5.1.1', 'failed', 'email.bounced', 'hard', 'nobody@example.com'] },
  { file: 'bounce-exim-dsn-auto-replied-delayed.eml', kind: 'dsn', format: 'rfc3464', recipient: ['4.7.1', 'delayed', 'email.delivery_delayed', null, 'busy@example.org'] },
  { file: 'bounce-exchange-online-ndr-suppress-all.eml', kind: 'dsn', format: 'rfc3464', recipient: ['5.1.10', 'failed', 'email.bounced', 'hard', 'gone@contoso.com'] },
  { file: 'bounce-exchange-onprem-de-unzustellbar.eml', kind: 'dsn', format: 'rfc3464', recipient: ['5.2.2', 'failed', 'email.bounced', 'soft', 'voll@beispiel-ag.de'] },
  { file: 'bounce-sendmail-dsn-precedence-junk.eml', kind: 'dsn', format: 'rfc3464', recipient: ['5.2.2', 'failed', 'email.bounced', 'soft', 'full@example.edu'] },
  { file: 'bounce-qmail-precedence-bulk.eml', kind: 'dsn', format: 'qmail', recipient: ['5.1.1', 'failed', 'email.bounced', 'hard', 'nouser@example.com'] },
  { file: 'bounce-exim-text-precedence-bulk.eml', kind: 'dsn', format: 'exim', recipient: ['5.1.1', 'failed', 'email.bounced', 'hard', 'ghost@example.org'] },
  { file: 'bounce-gmail-text-auto-replied.eml', kind: 'dsn', format: 'gmail', recipient: ['5.1.1', 'failed', 'email.bounced', 'hard', 'nobody.here@gmail.com'] },
  { file: 'bounce-exchange-text-ndr-vacation-subject.eml', kind: 'dsn', format: 'exchange', recipient: ['5.1.1', 'failed', 'email.bounced', 'hard', 'left.company@corp.example.com'] },
  // A bounce in a language whose subject and sender we do not list, marked auto-replied: the
  // SMTP reply it quotes ("550 5.1.1 …") says it is a bounce.
  { file: 'bounce-localized-unknown-sender-auto-replied.eml', kind: 'dsn', format: 'generic', recipient: ['5.1.1', 'failed', 'email.bounced', 'hard', 'neexistuje@example.cz'] },
];

async function read(file: string): Promise<Report> {
  return readReport(readFileSync(join(CORPUS, file)));
}

describe('automatic replies and bounces that look like them', () => {
  test('when the corpus is listed, then every file has an expectation and it holds at least 30 messages, both line ends', () => {
    const files = readdirSync(CORPUS).filter((f) => f.endsWith('.eml')).sort();
    expect(EXPECTED.map((e) => e.file).sort()).toEqual(files);
    expect(files.length).toBeGreaterThanOrEqual(30);
    const raw = files.map((f) => readFileSync(join(CORPUS, f), 'latin1'));
    expect(raw.filter((r) => r.includes('\r\n')).length).toBeGreaterThanOrEqual(5);
    expect(raw.filter((r) => !r.includes('\r')).length).toBeGreaterThanOrEqual(5);
  });

  test.each(EXPECTED.map((e) => [e.file, e] as const))('when %s is read, then it is what it is', async (_file, expected) => {
    const report = await read(expected.file);
    expect(report.kind).toBe(expected.kind);
    const outcome = reportOutcome(report, 'someone@example.com');
    if (expected.kind === 'auto-reply') expect(outcome).toBeNull();
    if (expected.kind === 'unknown') expect(outcome).toMatchObject({ kind: 'bounced' });
    if (expected.kind === 'dsn' && report.kind === 'dsn') {
      expect(report.format).toBe(expected.format);
      expect(report.recipients).toHaveLength(1);
      const r = report.recipients[0];
      if (!r) throw new Error('no recipient');
      const c = classifyBounce(r.status, r.action);
      expect([r.status, r.action, c.event, c.bounceType, r.finalRecipient ?? null]).toEqual(expected.recipient);
    }
  });
});

describe('the rules that tell automatic replies from bounces', () => {
  const msg = (headers: string, body: string) => Buffer.from(`${headers}\n\n${body}\n`);

  test.each([
    ['Precedence: bulk', 'auto-reply'],
    ['Precedence: junk', 'auto-reply'],
    ['Precedence: list', 'unknown'],
    ['Precedence: bulkmail', 'unknown'],
  ])('when a plain message with no other mark has %s, then it is read as %s', async (precedence, kind) => {
    expect((await readReport(msg(`From: a@x.example\nSubject: Re: hi\n${precedence}`, 'Away.'))).kind).toBe(kind);
  });

  test('when an automatic reply quotes an SMTP reply with its enhanced code, then it looks like a bounce and is not an auto-reply', async () => {
    const raw = msg('From: Mail System <mail@x.example>\nSubject: Zpráva\nAuto-Submitted: auto-replied', '<a@y.example>: 550 5.1.1 no such user');
    expect(await readReport(raw)).toMatchObject({ kind: 'dsn', format: 'generic', recipients: [{ status: '5.1.1', finalRecipient: 'a@y.example' }] });
  });

  test.each(['Tel: 555 0100', 'Room 5.1.10', 'call 550 4.2.1', 'v550 5.1.1', '550 5.1.1.4'])('when an auto-reply text has "%s" (not a quoted SMTP reply), then it stays an auto-reply', async (text) => {
    expect((await readReport(msg('From: a@x.example\nSubject: Automatic reply: Undeliverable parcel\nAuto-Submitted: auto-replied', text))).kind).toBe('auto-reply');
  });

  test.each([
    ['Automatic reply: Paket nicht zustellbar', 'auto-reply'],
    ['AW: Automatische Antwort: Undeliverable', 'auto-reply'],
    ['Réponse automatique\u00a0: Non remis', 'auto-reply'],
    ['自動応答：配達不能', 'auto-reply'],
    // No prefix with its colon: the bounce subject counts.
    ['Undeliverable: Automatic reply: x', 'unknown'],
    ['Out of office policy update', 'unknown'],
  ])('when postmaster sends "%s" marked auto-replied with no code, then it is %s', async (subject, kind) => {
    expect((await readReport(msg(`From: postmaster@x.example\nSubject: ${subject}\nAuto-Submitted: auto-replied`, 'Closed until Monday.'))).kind).toBe(kind);
  });

  test('when a text complaint is marked as an automatic reply, then it is not a complaint; unmarked, it still is', async () => {
    const body = 'We got your complaint about our product.\nMessage-ID: <c1@acme.test>';
    expect((await readReport(msg('From: care@x.example\nSubject: Case 1\nX-Autoreply: yes', body))).kind).toBe('auto-reply');
    expect((await readReport(msg('From: care@x.example\nSubject: Case 1\nAuto-Submitted: auto-replied', body))).kind).toBe('auto-reply');
    expect((await readReport(msg('From: abuse@isp.example\nSubject: Spam complaint\nAuto-Submitted: auto-generated', body))).kind).toBe('arf');
  });

  test('when subjects and texts are long and hostile, then the rules finish quickly', async () => {
    const started = Date.now();
    await readReport(msg(`From: a@x.example\nSubject: ${'re: '.repeat(20_000)}${'automatic reply '.repeat(5_000)}\nPrecedence: ${' '.repeat(50_000)}bulk`, `${'550 5.'.repeat(50_000)}`));
    await readReport(msg(`From: a@x.example\nSubject: ${'Re:\t'.repeat(50_000)}`, `${'5551 5.1.1 '.repeat(50_000)}`));
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
