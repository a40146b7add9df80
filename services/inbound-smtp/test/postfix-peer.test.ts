import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { createTransport } from 'nodemailer';
import { freePort } from '../../../scripts/lib/free-port';
import { selfSignedCertificate } from '../../../test/support/certificate';
import { PrivatePostfix } from '../../../test/support/postfix';
import { type SendingStack, startSendingStack, waitForEmail } from '../../../test/support/sending';
import { startTestMx, type TestMx } from './smtp-support';

/**
 * Postfix (Debian's, a private instance under a temporary folder) as the real SMTP peer of
 * Mailroom: it relays mail to our MX, it is the smarthost our sender delivers to, it delivers
 * into its own maildirs, and it writes and sends its own delivery status notifications to our
 * VERP return path, which its transport map routes to our MX. Everything is checked through
 * the HTTP API, PostgreSQL, Postfix's log, queue and maildirs.
 */

const BOUNCE_DOMAIN = 'bounces.mailroom.test';
const POSTFIX_HOSTNAME = 'postfix.peer.test';
/** Postfix's own virtual mailbox domain: `alice` and `ann` have maildirs, nobody else. */
const PEER = 'peer.test';
const FROM = 'Acme <hello@acme.test>';
/** A domain Postfix relays to a port where nothing listens, so its mail waits in Postfix's queue. */
const UNREACHABLE = 'unreachable.test';
/** How long Postfix keeps trying before it returns a message (maximal_queue_lifetime). */
const POSTFIX_QUEUE_LIFETIME_SECONDS = 12;

let postfix: PrivatePostfix;
let s: SendingStack;
let mx: TestMx;
let supportRoute: string;
let certDir: string;

beforeAll(async () => {
  const postfixPort = await freePort();
  const closedPort = await freePort();
  // Postfix offers STARTTLS with a self-signed certificate; our sender relays through it over TLS.
  s = await startSendingStack('postfix', {
    OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${postfixPort}?tls.rejectUnauthorized=false`,
    BOUNCE_DOMAIN,
    ALLOW_SIGNUP: 'true',
    SMTP_HOSTNAME: 'sender.mailroom.test',
  });
  // Our MX offers STARTTLS too, which Postfix's SMTP client uses (smtp_tls_security_level = may).
  certDir = mkdtempSync(join(tmpdir(), 'mx-postfix-tls-'));
  const mxCert = selfSignedCertificate(certDir, 'mx.mailroom.test');
  mx = await startTestMx({
    database: s.t.database,
    env: { BOUNCE_DOMAIN, RECONCILE_INTERVAL_SECONDS: '1', SMTP_HOSTNAME: 'mx.mailroom.test', SMTP_TLS_CERT_FILE: mxCert.certFile, SMTP_TLS_KEY_FILE: mxCert.keyFile },
  });
  postfix = await PrivatePostfix.start({
    hostname: POSTFIX_HOSTNAME,
    port: postfixPort,
    relays: { 'acme.test': `127.0.0.1:${mx.mx.port}`, [BOUNCE_DOMAIN]: `127.0.0.1:${mx.mx.port}`, [UNREACHABLE]: `127.0.0.1:${closedPort}` },
    mailboxDomain: PEER,
    mailboxes: ['alice', 'ann'],
    tls: true,
    // A delay warning as soon as a message has waited a second, and a return soon after.
    settings: { delay_warning_time: '1s', maximal_queue_lifetime: `${POSTFIX_QUEUE_LIFETIME_SECONDS}s` },
  });
  const route = await s.api.post('/routes', { match: 'support@acme.test', name: 'Support' });
  expect(route.status).toBe(201);
  supportRoute = route.body.id;
}, 60_000);

afterAll(async () => {
  await postfix?.stop();
  await mx?.close();
  await s?.close();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
}, 30_000);

/** Hands a message to Postfix's SMTP server (as a client of its mynetworks); returns Postfix's queue id. */
async function injectIntoPostfix(from: string, to: string | string[], raw: string): Promise<string> {
  const transport = createTransport({ host: '127.0.0.1', port: postfix.port, secure: false, ignoreTLS: true, name: 'client.peer.test' });
  try {
    const info = await transport.sendMail({ envelope: { from, to: typeof to === 'string' ? [to] : to }, raw });
    const queueId = /queued as ([0-9A-F]+)/.exec(info.response)?.[1];
    if (!queueId) throw new Error(`Postfix did not queue the message: ${info.response}`);
    return queueId;
  } finally {
    transport.close();
  }
}

/** Postfix's non-delivery notification about its queue id `queueId`, once in `local`'s maildir. */
async function bounceIn(local: string, queueId: string): Promise<string> {
  const about = (m: { raw: Buffer }) => m.raw.includes(`X-Postfix-Queue-ID: ${queueId}`);
  await postfix.waitFor(() => postfix.mailbox(local).some(about), 20_000, `Postfix's bounce of ${queueId} in ${local}'s mailbox`);
  return postfix.mailbox(local).find(about)!.raw.toString('utf8');
}

/** Postfix's log lines about one of its queue ids. */
const logOf = (queueId: string) =>
  postfix
    .log()
    .split('\n')
    .filter((line) => line.includes(`${queueId}:`));

describe('Postfix relays to our MX', () => {
  test('when Postfix relays a message for a route, then GET /emails/received shows it with Postfix as the envelope client', async () => {
    const raw = [
      'From: Ann Example <ann@peer.test>',
      'To: Support <support@acme.test>',
      'Subject: =?UTF-8?Q?Bestellung_Nr._7_=E2=80=93_Gr=C3=B6=C3=9Fe?=',
      'Message-ID: <relayed-1@peer.test>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      'Hallo, könnt ihr die Größe ändern? ✓',
      '',
    ].join('\r\n');
    const queueId = await injectIntoPostfix('ann@peer.test', 'support@acme.test', raw);

    let received: any;
    await postfix.waitFor(
      async () => {
        const list = await s.api.get(`/emails/received?routeId=${supportRoute}`);
        const item = list.body.data?.find((e: any) => e.messageId === '<relayed-1@peer.test>');
        if (!item) return false;
        received = (await s.api.get(`/emails/received/${item.id}`)).body;
        return received.subject !== null && received.authentication !== null;
      },
      20_000,
      'the relayed message in GET /emails/received',
    );

    expect(received).toMatchObject({
      object: 'received_email',
      routeId: supportRoute,
      from: { address: 'ann@peer.test', name: 'Ann Example' },
      to: [{ address: 'support@acme.test', name: 'Support' }],
      subject: 'Bestellung Nr. 7 – Größe',
      messageId: '<relayed-1@peer.test>',
      envelope: { mailFrom: 'ann@peer.test', rcptTo: ['support@acme.test'], helo: POSTFIX_HOSTNAME, remoteAddress: '127.0.0.1' },
    });
    expect(received.text.trim()).toBe('Hallo, könnt ihr die Größe ändern? ✓');
    // Postfix's own trace header, on top of what the client gave it.
    expect(received.headers).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Received', value: expect.stringContaining(`by ${POSTFIX_HOSTNAME} (Postfix)`) })]));

    // Postfix logged our 250 with the stored id, and nothing waits in its queue.
    await postfix.waitFor(() => logOf(queueId).some((l) => l.includes('status=sent')), 5_000, 'Postfix to log the delivery');
    const sent = logOf(queueId).find((l) => l.includes('status=sent'))!;
    expect(sent).toContain('to=<support@acme.test>');
    expect(sent).toContain(`relay=127.0.0.1[127.0.0.1]:${mx.mx.port}`);
    expect(sent).toMatch(new RegExp(`\\(250 2\\.6\\.0 Ok: queued as ${received.id}\\)`));
    // Over STARTTLS, which our MX offered and Postfix took.
    expect(postfix.log()).toMatch(new RegExp(`TLS connection established to 127\\.0\\.0\\.1\\[127\\.0\\.0\\.1\\]:${mx.mx.port}: TLSv1\\.[23] `));
    expect(await postfix.queueIsEmpty()).toBe(true);
  });

  test('when Postfix relays to an address no route claims, then our 550 makes Postfix bounce it at once (not defer it) to its sender', async () => {
    const raw = 'From: ann@peer.test\r\nTo: nobody@acme.test\r\nSubject: anyone there?\r\nMessage-ID: <relayed-2@peer.test>\r\n\r\nHello?\r\n';
    const queueId = await injectIntoPostfix('ann@peer.test', 'nobody@acme.test', raw);

    // Postfix's own DSN reaches the sender's mailbox, with our reply as its diagnostic.
    const bounce = await bounceIn('ann', queueId);
    expect(bounce).toMatch(/^From: Mail Delivery System <MAILER-DAEMON@postfix\.peer\.test>\r?$/m);
    expect(bounce).toContain('Final-Recipient: rfc822; nobody@acme.test');
    expect(bounce).toContain('Action: failed');
    expect(bounce).toContain('Status: 5.1.1');
    expect(bounce).toMatch(/Diagnostic-Code: smtp; 550 5\.1\.1 /);
    expect(bounce).toContain('Message-ID: <relayed-2@peer.test>');

    // One attempt, a permanent answer in reply to RCPT TO: never deferred, nothing left queued.
    await postfix.waitFor(() => logOf(queueId).some((l) => l.includes('status=bounced')), 5_000, 'Postfix to log the bounce');
    const lines = logOf(queueId);
    expect(lines.filter((l) => l.includes('status=deferred'))).toEqual([]);
    expect(lines.find((l) => l.includes('status=bounced'))).toMatch(
      new RegExp(`to=<nobody@acme\\.test>, relay=127\\.0\\.0\\.1\\[127\\.0\\.0\\.1\\]:${mx.mx.port},.* dsn=5\\.1\\.1, status=bounced \\(host 127\\.0\\.0\\.1\\[127\\.0\\.0\\.1\\] said: 550 5\\.1\\.1 .*\\(in reply to RCPT TO command\\)\\)`),
    );
    await postfix.waitFor(() => postfix.queueIsEmpty(), 5_000, "Postfix's queue to be empty");

    // And the MX stored nothing for it.
    const { rows } = await mx.pool.query({ text: `SELECT id FROM received_emails WHERE 'nobody@acme.test' = ANY(rcpt_to)` });
    expect(rows).toEqual([]);
  });

  test('when one Postfix transaction names a route and an unknown address, then the route gets the message and only the unknown one is bounced', async () => {
    const raw = 'From: ann@peer.test\r\nTo: support@acme.test, ghost@acme.test\r\nSubject: two of you\r\nMessage-ID: <relayed-3@peer.test>\r\n\r\nHi both.\r\n';
    const queueId = await injectIntoPostfix('ann@peer.test', ['support@acme.test', 'ghost@acme.test'], raw);

    const bounce = await bounceIn('ann', queueId);
    expect(bounce).toContain('Final-Recipient: rfc822; ghost@acme.test');
    expect(bounce).not.toContain('Final-Recipient: rfc822; support@acme.test');
    const logged = (recipient: string, status: string) => logOf(queueId).find((l) => l.includes(`to=<${recipient}>`) && l.includes(`status=${status}`));
    await postfix.waitFor(() => !!logged('support@acme.test', 'sent') && !!logged('ghost@acme.test', 'bounced'), 5_000, 'Postfix to log both outcomes');
    expect(logged('ghost@acme.test', 'bounced')).toContain('said: 550 5.1.1');
    expect(logOf(queueId).filter((l) => l.includes('status=deferred'))).toEqual([]);
    const lines = logOf(queueId);

    // The copy our MX stored (the id Postfix logged from our 250) has only the route's recipient.
    const stored = /queued as (inb_\w+)/.exec(lines.find((l) => l.includes('to=<support@acme.test>') && l.includes('status=sent'))!)![1]!;
    const copy = await s.api.get(`/emails/received/${stored}`);
    expect(copy.status).toBe(200);
    expect(copy.body).toMatchObject({ routeId: supportRoute, envelope: { mailFrom: 'ann@peer.test', rcptTo: ['support@acme.test'], helo: POSTFIX_HOSTNAME } });
  });
});

describe('our sender and Postfix', () => {
  test("when Postfix accepts a message for a user it lacks, then its own DSN reaches our MX at the VERP address and the recipient is bounced (hard, 5.1.1)", async () => {
    const to = `nobody@${PEER}`;
    const res = await s.api.post('/emails', { from: FROM, to, subject: 'Your receipt', text: 'Thanks for your order.' });
    expect(res.status).toBe(200);
    const id = res.body.id as string;

    const hasBounce = (e: any) => e.events?.some((ev: any) => ev.type === 'email.bounced');
    let email: any;
    await postfix.waitFor(
      async () => {
        email = (await s.api.get(`/emails/${id}`)).body;
        return hasBounce(email);
      },
      30_000,
      `email.bounced on ${id}`,
    );
    // Postfix answered 250 (the smarthost took it), then bounced it by mail: the bounce wins,
    // whichever of the two outcomes was committed first.
    expect(email.events.map((e: any) => e.type).sort()).toEqual(['email.bounced', 'email.delivered', 'email.sent']);
    email = await waitForEmail(s.api, id, (e) => e.status === 'bounced', 5_000);
    expect(email.recipients).toEqual([expect.objectContaining({ email: to, status: 'bounced' })]);
    const bounced = email.events.find((e: any) => e.type === 'email.bounced');
    expect(bounced.data).toMatchObject({ email_id: id, recipient: to, bounce: { type: 'hard', code: '5.1.1' } });
    expect(bounced.data.bounce.message).toContain(to);

    // The report is Postfix's real RFC 3464 DSN, as it arrived at our MX from Postfix.
    const reportId = bounced.data.report.received_email_id as string;
    // Its outcome can be on the timeline a moment before its parsed fields are written.
    let report: any;
    await postfix.waitFor(
      async () => {
        report = (await s.api.get(`/emails/received/${reportId}`)).body;
        return report.from !== null;
      },
      10_000,
      `${reportId} parsed`,
    );
    expect(report).toMatchObject({
      routeId: null,
      from: { address: `MAILER-DAEMON@${POSTFIX_HOSTNAME}` },
      envelope: { mailFrom: '', helo: POSTFIX_HOSTNAME, remoteAddress: '127.0.0.1' },
    });
    expect(report.envelope.rcptTo).toHaveLength(1);
    expect(report.envelope.rcptTo[0]).toMatch(new RegExp(`^bounces\\+rcpt_\\w+-\\w+@${BOUNCE_DOMAIN.replace(/\./g, '\\.')}$`));
    const raw = await s.api.get(`/emails/received/${reportId}/raw`);
    expect(raw.text).toMatch(/Content-Type: multipart\/report; report-type=delivery-status;/);
    expect(raw.text).toContain(`Reporting-MTA: dns; ${POSTFIX_HOSTNAME}`);
    expect(raw.text).toContain(`Final-Recipient: rfc822; ${to}`);
    expect(raw.text).toContain('Status: 5.1.1');
    expect(raw.text).toContain(`Message-ID: <${id}@acme.test>`);

    // A 5.1.1 suppresses the address.
    const suppression = await s.api.get(`/suppressions/${encodeURIComponent(to)}`);
    expect(suppression.status).toBe(200);
    expect(suppression.body).toMatchObject({ reason: 'bounce' });
  });

  test('when our sender delivers to a mailbox Postfix has, then the maildir holds the message intact and the email is delivered', async () => {
    const to = `alice@${PEER}`;
    const attachment = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0xfe, 0x0d, 0x0a, 0x2e, 0x0d, 0x0a, 0x80, 0x81]);
    const subject = 'Ihre Bestellung – Größe L ✓ 注文';
    const text = 'Grüße aus Köln — naïve café, 注文ありがとうございます ✓\n.\nA line with a lone dot above.';
    const res = await s.api.post('/emails', {
      from: FROM,
      to,
      subject,
      text,
      html: '<p>Grüße aus Köln — <b>naïve café</b> ✓</p>',
      attachments: [{ filename: 'Rechnung-März.bin', content: attachment.toString('base64'), contentType: 'application/octet-stream' }],
    });
    expect(res.status).toBe(200);
    const id = res.body.id as string;

    const email = await waitForEmail(s.api, id, (e) => e.status === 'delivered', 20_000);
    expect(email.recipients).toEqual([expect.objectContaining({ email: to, status: 'delivered', attempts: 1 })]);
    expect(email.recipients[0].lastResponse).toMatch(/^250 2\.0\.0 Ok: queued as [0-9A-F]+$/);

    const isOurs = (m: { raw: Buffer }) => m.raw.includes(`<${id}@acme.test>`);
    await postfix.waitFor(() => postfix.mailbox('alice').some(isOurs), 10_000, "the message in alice's maildir");
    const delivered = postfix.mailbox('alice').find(isOurs)!;
    const parsed = await simpleParser(delivered.raw);
    expect(parsed.subject).toBe(subject);
    expect(parsed.text?.trim()).toBe(text);
    expect(parsed.html).toBe('<p>Grüße aus Köln — <b>naïve café</b> ✓</p>');
    expect(parsed.from?.value).toEqual([{ address: 'hello@acme.test', name: 'Acme' }]);
    expect(parsed.messageId).toBe(`<${id}@acme.test>`);
    expect(parsed.attachments).toHaveLength(1);
    expect(parsed.attachments[0]).toMatchObject({ filename: 'Rechnung-März.bin', contentType: 'application/octet-stream' });
    expect(parsed.attachments[0]!.content.equals(attachment)).toBe(true);
    // Postfix's delivery headers: the VERP return path it was given, and who it came from.
    const header = (name: string) => parsed.headerLines.filter((h) => h.key === name).map((h) => h.line);
    expect(header('return-path')).toEqual([expect.stringMatching(new RegExp(`^Return-Path: <bounces\\+rcpt_\\w+-\\w+@${BOUNCE_DOMAIN.replace(/\./g, '\\.')}>$`))]);
    expect(header('delivered-to')).toEqual([`Delivered-To: ${to}`]);
    // "ESMTPS": our sender took the STARTTLS Postfix offered.
    expect(header('received')[0]).toMatch(/^Received: from sender\.mailroom\.test \(unknown \[127\.0\.0\.1\]\)\s+by postfix\.peer\.test \(Postfix\) with ESMTPS id /);
  });

  test("when Postfix cannot pass a message on, then its delay warning and finally its return reach our MX: email.delivery_delayed, then a soft bounce", async () => {
    const to = `someone@${UNREACHABLE}`;
    const res = await s.api.post('/emails', { from: FROM, to, subject: 'Slow one', text: 'This will wait.' });
    expect(res.status).toBe(200);
    const id = res.body.id as string;

    const types = (e: any): string[] => e.events?.map((ev: any) => ev.type) ?? [];
    let email: any;
    await postfix.waitFor(
      async () => {
        email = (await s.api.get(`/emails/${id}`)).body;
        return types(email).includes('email.delivery_delayed');
      },
      20_000,
      `email.delivery_delayed on ${id}`,
    );
    const delayed = email.events.find((e: any) => e.type === 'email.delivery_delayed');
    expect(delayed.data).toMatchObject({ email_id: id, recipient: to });
    expect(delayed.data.smtp.enhanced_code).toMatch(/^4\.4\.\d$/);
    // A delay report never undoes what the smarthost's 250 made final.
    expect(email.recipients[0]).toMatchObject({ email: to, status: 'delivered' });
    const warning = await s.api.get(`/emails/received/${delayed.data.report.received_email_id}/raw`);
    expect(warning.text).toContain('Action: delayed');
    expect(warning.text).toContain(`Reporting-MTA: dns; ${POSTFIX_HOSTNAME}`);

    await postfix.waitFor(
      async () => {
        email = (await s.api.get(`/emails/${id}`)).body;
        return types(email).includes('email.bounced');
      },
      (POSTFIX_QUEUE_LIFETIME_SECONDS + 15) * 1000,
      `email.bounced on ${id} once Postfix gives up`,
    );
    expect(types(email)).toEqual(['email.sent', 'email.delivered', 'email.delivery_delayed', 'email.bounced']);
    const bounced = email.events.find((e: any) => e.type === 'email.bounced');
    expect(bounced.data.bounce).toMatchObject({ type: 'soft', code: expect.stringMatching(/^4\.4\.\d$/) });
    expect(email.recipients[0]).toMatchObject({ status: 'bounced' });
    const returned = await s.api.get(`/emails/received/${bounced.data.report.received_email_id}/raw`);
    expect(returned.text).toContain('Action: failed');
    // A soft bounce does not suppress the address.
    expect((await s.api.get(`/suppressions/${encodeURIComponent(to)}`)).status).toBe(404);
  }, 45_000);
});
