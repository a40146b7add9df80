import { classifyBounce, readReport } from '../src/feedback/read-report';
import { findEnhancedCode, statusFromText } from '../src/feedback/status-codes';
import { pickRecipient } from '../src/processing/apply-feedback';

const VERP = 'bounces+rcpt_01jf8x2k9m3n4p5q6r7s8t9v0w-3f2a9c1b7e4d@bounce.mailroom.test';

function dsn(statusGroup: string, extra = ''): Buffer {
  return Buffer.from(
    [
      'From: MAILER-DAEMON@mx.example.com',
      `To: ${VERP}`,
      'Subject: Undelivered Mail Returned to Sender',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'Failed.',
      '--b',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example.com',
      '',
      statusGroup,
      '',
      `--b${extra}`,
      '',
    ].join('\r\n'),
  );
}

describe('classifyBounce', () => {
  test.each([
    ['5.1.1', 'failed', 'email.bounced', 'hard'],
    ['5.1.10', 'failed', 'email.bounced', 'hard'],
    ['5.7.1', 'failed', 'email.bounced', 'policy'],
    ['5.2.2', 'failed', 'email.bounced', 'soft'],
    ['5.0.0', 'failed', 'email.bounced', 'soft'],
    ['4.4.7', 'failed', 'email.bounced', 'soft'],
    [null, 'failed', 'email.bounced', 'soft'],
    ['4.2.2', 'delayed', 'email.delivery_delayed', null],
    [null, 'delayed', 'email.delivery_delayed', null],
    ['2.0.0', 'delivered', null, null],
    ['2.0.0', 'relayed', null, null],
    ['2.0.0', 'expanded', null, null],
  ] as const)('when the status is %s and the action %s, then the event is %s with bounce type %s', (status, action, event, bounceType) => {
    expect(classifyBounce(status, action)).toEqual({ event, bounceType });
  });
});

describe('status codes in text', () => {
  test('when the text has IP addresses or versions but no status code, then none is read from them', () => {
    expect(findEnhancedCode('host 192.5.1.1 refused; server 10.4.4.7')).toBeNull();
    expect(statusFromText('connect to mx.example.net[198.51.100.7]:25: Connection timed out')).toBeNull();
  });

  test('when the text has no code and does not say the failure is permanent, then the status is null, not a guess', () => {
    expect(statusFromText('User unknown')).toBeNull();
    expect(statusFromText('User unknown', { permanent: true })).toBe('5.1.1');
    expect(statusFromText('Sorry, no mailbox here by that name. (#5.1.1)')).toBe('5.1.1');
  });
});

describe('status codes in text: which code is the truth', () => {
  test.each([
    // Amazon SES: its category code first, then the remote reply, which decides.
    ["5.1.0 - Unknown address error 550-'5.2.2 <a@example.jp>... Mailbox Full'", '5.2.2'],
    ["5.3.0 - Other mail system problem 550-'Unknown user a@example.jp'", '5.1.1'],
    ["5.1.0 - Unknown address error 550-'Address rejected'", '5.1.0'],
    // A class code is refined by the words; a text about our side never becomes a missing recipient.
    ['550 5.0.0 <a@example.com>... User unknown', '5.1.1'],
    ['5.0.0 No such user', '5.1.1'],
    ['5.0.0 Relay access denied', '5.0.0'],
    ['550 5.7.1 No such user!', '5.7.1'],
  ])('when the text is "%s", then the status is %s', (text, expected) => {
    expect(statusFromText(text)).toBe(expected);
  });

  test('when a permanent failure says the domain does not exist, then 5.1.2 (a null MX 5.1.10), never for our sender domain', () => {
    expect(statusFromText('Host unknown', { permanent: true })).toBe('5.1.2');
    expect(statusFromText('Domain does not exist', { permanent: true })).toBe('5.1.2');
    expect(statusFromText("The domain x.example doesn't receive email according to the administrator: returned Null MX", { permanent: true })).toBe('5.1.10');
    expect(statusFromText('Sender domain not found', { permanent: true })).toBeNull();
    expect(statusFromText('Host unknown')).toBeNull();
  });
});

describe('readReport', () => {
  test('when Status is only a class and the diagnostic has a specific code of that class, then the specific one is used', async () => {
    const report = await readReport(dsn('Final-Recipient: rfc822; a@example.com\r\nAction: failed\r\nStatus: 5.0.0\r\nDiagnostic-Code: smtp; 550 5.1.1 no such user'));
    expect(report).toMatchObject({ kind: 'dsn', recipients: [{ status: '5.1.1', action: 'failed' }] });
  });

  test.each([
    ['5.2.0', '5.1.1'],
    ['5.7.0', '5.7.0'],
  ])('when Status is %s beside a bare "550 No such user", then the status is %s (a policy code is never read as a missing recipient)', async (status, expected) => {
    const report = await readReport(dsn(`Final-Recipient: rfc822; a@example.com\r\nAction: failed\r\nStatus: ${status}\r\nDiagnostic-Code: smtp; 550 No such user`));
    expect(report).toMatchObject({ kind: 'dsn', recipients: [{ status: expected }] });
  });

  test('when a report declares a boundary its parts never use, then its text is still read (as text/plain)', async () => {
    const raw = [
      'From: MAILER-DAEMON@mx.example.com',
      `To: ${VERP}`,
      'Subject: Undelivered Mail Returned to Sender',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="declared"',
      '',
      '--used',
      'Content-Type: text/plain',
      '',
      'This is the mail system at host mx.example.com.',
      '',
      "I'm sorry to have to inform you that your message could not",
      'be delivered to one or more recipients.',
      '',
      '<nobody@example.org>: host mx.example.org[192.0.2.7] said: 550 5.1.1',
      '    <nobody@example.org>: Recipient address rejected: User unknown (in reply to',
      '    RCPT TO command)',
      '',
      '--used--',
      '',
    ].join('\r\n');
    expect(await readReport(Buffer.from(raw))).toMatchObject({ kind: 'dsn', format: 'postfix', recipients: [{ status: '5.1.1', finalRecipient: 'nobody@example.org' }] });
  });

  test('when Action is missing, then it follows from the status', async () => {
    const report = await readReport(dsn('Final-Recipient: rfc822; a@example.com\r\nStatus: 4.2.0'));
    expect(report).toMatchObject({ kind: 'dsn', recipients: [{ status: '4.2.0', action: 'delayed' }] });
  });

  test('when the delivery-status part is empty, then the report is unknown, not a guessed bounce', async () => {
    const report = await readReport(dsn('X-Nothing: here'));
    expect(report.kind).toBe('unknown');
  });

  test('when the closing boundary is missing, then the parts up to the end are still read', async () => {
    const raw = dsn('Final-Recipient: rfc822; a@example.com\r\nAction: failed\r\nStatus: 5.1.1').toString().replace(/--b\r\n$/, '');
    expect(await readReport(Buffer.from(raw))).toMatchObject({ kind: 'dsn', recipients: [{ status: '5.1.1' }] });
  });

  test.each([
    ['empty input', Buffer.alloc(0)],
    ['only NUL bytes', Buffer.alloc(10_000)],
    ['a header without a body', Buffer.from('Content-Type: multipart/report; boundary=x')],
    ['a boundary that is a regex', Buffer.from('Content-Type: multipart/mixed; boundary="(a+)+$"\n\n--(a+)+$\nContent-Type: message/delivery-status\n\nAction: failed\n--(a+)+$--\n')],
    ['an encoded word with a bogus charset', Buffer.from('Subject: =?x-nope?B?////?=\n\nhello\n')],
    ['invalid base64 and quoted-printable', Buffer.from('Content-Transfer-Encoding: base64\n\n%%%%\n')],
    // Shapes that made earlier patterns backtrack for minutes (runs of blank lines after a
    // family's marker, long whitespace inside an address line, many folded header lines).
    ['a Domino marker then 200 000 newlines', Buffer.from(`was not delivered to:${'\n'.repeat(200_000)}`)],
    ['a Gmail response marker then blank lines', Buffer.from(`** Address not found **\nThe response was:\nx${'\n \n'.repeat(60_000)}`)],
    ['a Sendmail marker then 200 000 newlines', Buffer.from(`x\n${'\n'.repeat(200_000)}----- Transcript of session follows -----`)],
    ['a Hotmail address line padded with spaces', Buffer.from(`This is an automatically generated Delivery Status Notification\nDelivery to the following recipients failed.\n ${' '.repeat(100_000)}a@b${' '.repeat(100_000)}x`)],
    ['100 000 folded header lines', Buffer.from(`X: y\n${' z\n'.repeat(100_000)}\nbody`)],
    ['HTML of unclosed tags and style blocks', Buffer.from(`Content-Type: text/html\n\n${'<'.repeat(100_000)}${'<style></style>'.repeat(10_000)}`)],
  ])('when the input is %s, then readReport resolves without throwing', async (_name, raw) => {
    const report = await readReport(raw);
    expect(['unknown', 'dsn', 'auto-reply', 'arf']).toContain(report.kind);
  });

  test('when a report is 20 MB with the original last, then the DSN before it is read', async () => {
    const head = dsn('Final-Recipient: rfc822; a@example.com\r\nAction: failed\r\nStatus: 5.1.1').toString().replace(/--b\r\n$/, '');
    const big = Buffer.concat([Buffer.from(`${head}--b\r\nContent-Type: message/rfc822\r\n\r\nSubject: x\r\n\r\n`), Buffer.alloc(20 * 1024 * 1024, 'A')]);
    expect(await readReport(big)).toMatchObject({ kind: 'dsn', recipients: [{ status: '5.1.1' }] });
  });

  test('when multiparts are nested thousands deep, then reading stops at a depth cap and resolves', async () => {
    let body = 'Action: failed\nStatus: 5.1.1\n';
    for (let i = 0; i < 3000; i++) body = `Content-Type: multipart/mixed; boundary="n${i}"\n\n--n${i}\n${body}\n--n${i}--\n`;
    const report = await readReport(Buffer.from(body));
    expect(report.kind).toBe('unknown');
  });

  test('when a text bounce repeats an address line a hundred thousand times, then it is read without blowing up', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `<u${i}@example.com>:\nRemote host said: 550 5.1.1 no`).join('\n');
    const raw = Buffer.from(`From: MAILER-DAEMON@q.example\n\nHi. This is the qmail-send program at q.example.\nThis is a permanent error; I've given up.\n\n${lines}\n`);
    const report = await readReport(raw);
    expect(report.kind).toBe('dsn');
  });

  test('when a vacation reply writes its subject in raw UTF-8 (RFC 6532) with no Auto-Submitted, then it is an auto-reply as the encoded form is', async () => {
    const raw = (subject: string) => Buffer.concat([Buffer.from('From: Zoé <zoe@client.example>\nSubject: '), Buffer.from(subject, 'utf8'), Buffer.from('\n\nJe suis absente.\n')]);
    expect((await readReport(raw('=?utf-8?q?R=C3=A9ponse_automatique?= : Bonjour'))).kind).toBe('auto-reply');
    expect((await readReport(raw('Réponse automatique : Bonjour'))).kind).toBe('auto-reply');
  });

  test('when an unreadable bounce carries Auto-Submitted: auto-replied, then it stays unknown rather than an auto-reply', async () => {
    const raw = Buffer.from('From: MAILER-DAEMON@x.example\nSubject: Undeliverable\nAuto-Submitted: auto-replied\n\nIt did not work.\n');
    expect((await readReport(raw)).kind).toBe('unknown');
  });

  test('when an ARF report says not-spam or auth-failure, then the type is reported so the caller can tell it from a complaint', async () => {
    const arf = (type: string) =>
      Buffer.from(
        `From: fbl@isp.example\nContent-Type: multipart/report; report-type=feedback-report; boundary=f\n\n--f\nContent-Type: message/feedback-report\n\nFeedback-Type: ${type}\nVersion: 1\n\n--f\nContent-Type: text/rfc822-headers\n\nMessage-ID: <m1@acme.test>\nReturn-Path: <${VERP}>\n\n--f--\n`,
      );
    expect(await readReport(arf('auth-failure'))).toMatchObject({ kind: 'arf', feedbackType: 'auth-failure', format: 'arf', original: { messageId: '<m1@acme.test>', returnPath: VERP } });
    expect(await readReport(arf('not-spam'))).toMatchObject({ kind: 'arf', feedbackType: 'not-spam' });
    expect(await readReport(arf('opt-out'))).toMatchObject({ kind: 'arf', feedbackType: 'other' });
  });

  test('when an ARF original is redacted to nothing, then the VERP in Original-Mail-From still identifies it', async () => {
    const raw = Buffer.from(
      `From: fbl@isp.example\nContent-Type: multipart/report; report-type=feedback-report; boundary=f\n\n--f\nContent-Type: message/feedback-report\n\nFeedback-Type: abuse\nVersion: 1\nOriginal-Mail-From: <${VERP}>\n\n--f\nContent-Type: text/rfc822-headers\n\nSubject: [redacted]\n\n--f--\n`,
    );
    expect(await readReport(raw)).toMatchObject({ kind: 'arf', original: { returnPath: VERP } });
  });

  test('when an address field has another address-type than rfc822 (unknown, x400), then the type is not part of the address', async () => {
    const report = await readReport(dsn('Original-Recipient: unknown; Alias@example.com\r\nFinal-Recipient: X400; /G=Ada/S=Lovelace/O=Corp/\r\nAction: failed\r\nStatus: 5.1.1'));
    expect(report).toMatchObject({ kind: 'dsn', recipients: [{ originalRecipient: 'Alias@example.com', finalRecipient: '/G=Ada/S=Lovelace/O=Corp/' }] });
  });

  test('when the returned headers have a raw UTF-8 To (RFC 6532), then it is read as UTF-8', async () => {
    const raw = dsn('Final-Recipient: utf-8; j\\x{F6}rg@b\\x{FC}ro.example\r\nAction: failed\r\nStatus: 5.1.1', '\r\nContent-Type: text/rfc822-headers\r\n\r\nTo: J\u00f6rg <j\u00f6rg@b\u00fcro.example>\r\nMessage-ID: <u8@acme.test>\r\n\r\n--b--');
    const report = await readReport(raw);
    expect(report).toMatchObject({ kind: 'dsn', recipients: [{ finalRecipient: 'j\u00f6rg@b\u00fcro.example' }], original: { to: 'J\u00f6rg <j\u00f6rg@b\u00fcro.example>' } });
  });

  test('when an ARF report has several Original-Rcpt-To (RFC 5965 §3.2), a redacted one first, then all are kept and the recipient is found among them', async () => {
    const raw = Buffer.from(
      `From: fbl@isp.example\nContent-Type: multipart/report; report-type=feedback-report; boundary=f\n\n--f\nContent-Type: message/feedback-report\n\nFeedback-Type: abuse\nVersion: 1\nOriginal-Rcpt-To: <redacted-5c1e7a@isp.example>\nOriginal-Rcpt-To: <reader@isp.example>\n\n--f\nContent-Type: text/rfc822-headers\n\nMessage-ID: <m2@acme.test>\nTo: undisclosed-recipients:;\n\n--f--\n`,
    );
    const report = await readReport(raw);
    expect(report).toMatchObject({ kind: 'arf', originalRcptTo: 'redacted-5c1e7a@isp.example, reader@isp.example' });
    const recipients = [
      { id: 'rcp_1', address: 'other@isp.example' },
      { id: 'rcp_2', address: 'reader@isp.example' },
    ];
    expect(report.kind === 'arf' && pickRecipient(recipients, report.originalRcptTo, report.original.to)).toEqual({ id: 'rcp_2', address: 'reader@isp.example' });
  });

  test('when a plain complaint keeps no identifier of the original, then it is unknown', async () => {
    const raw = Buffer.from('From: abuse@isp.example\nSubject: Spam complaint\n\nOne of our users reported a message from you as spam.\n');
    expect((await readReport(raw)).kind).toBe('unknown');
  });
});
