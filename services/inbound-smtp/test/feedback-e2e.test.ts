import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, createRedis, EventQueue } from '@mailroom/core';
import nodemailer from 'nodemailer';
import { createKey, signUp } from '../../../test/support/gateway';
import { isFinished, type SendingStack, waitForEmail } from '../../../test/support/sending';
import type { SmtpSink } from '../../../test/support/smtp-sink';
import { type FeedbackStack, startFeedbackStack } from './feedback-stack';
import { processReceivedEmails } from '../src/processing';
import { RawSmtp, type TestMx, until } from './smtp-support';

// Mail really sent by the sender to a local SMTP sink; its VERP return path taken from the
// sink's MAIL FROM; reports about it delivered over SMTP to the real MX, which stores and
// processes them (DESIGN §7 "Feedback").
const BOUNCE_DOMAIN = 'bounces.mailroom.test';
const PUBLIC_API_URL = 'https://api.mailroom.test';
const FROM = 'Acme <hello@acme.test>';
/** The return path the files of feedback-corpus/ are addressed to; replaced by a real one here. */
const CORPUS_VERP = 'bounces+rcpt_01jf8x2k9m3n4p5q6r7s8t9v0w-3f2a9c1b7e4d@bounce.mailroom.test';

let stack: FeedbackStack;
let sink: SmtpSink;
let s: SendingStack;
let t: TestMx;

beforeAll(async () => {
  stack = await startFeedbackStack('fbwire', BOUNCE_DOMAIN, PUBLIC_API_URL);
  ({ sink, s, t } = stack);
});
afterAll(() => stack.close());

/** Sends one email to `to` through the API and the sender, waits until delivered; returns its id, Message-ID and VERP return path. */
async function sendDelivered(to: string | string[]): Promise<{ id: string; messageId: string; returnPaths: Record<string, string> }> {
  const res = await s.api.post('/emails', { from: FROM, to, subject: 'Your receipt', text: 'Thanks for your order.' });
  expect(res.status).toBe(200);
  const id = res.body.id as string;
  const email = await waitForEmail(s.api, id, isFinished);
  expect(email.status).toBe('delivered');
  const returnPaths: Record<string, string> = {};
  for (const m of sink.messages.filter((m) => m.raw.includes(`<${id}@acme.test>`))) returnPaths[m.recipients[0]!] = m.from;
  return { id, messageId: `<${id}@acme.test>`, returnPaths };
}

/** Delivers a report to the real MX with nodemailer from the null sender; returns the stored inb_ id once processed. */
async function deliver(to: string, raw: string | Buffer): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: t.mx.port, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail({ envelope: { from: '', to: [to] }, raw });
    return await processed(/queued as (inb_\w+)/.exec(info.response)?.[1]);
  } finally {
    transport.close();
  }
}

async function processed(id: string | undefined): Promise<string> {
  if (!id) throw new Error('no inb_ id in the reply');
  await until(
    async () => (await t.pool.query<{ done: boolean }>({ text: 'SELECT processed_at IS NOT NULL AS done FROM received_emails WHERE id = $1', values: [id] })).rows[0]?.done === true,
    10_000,
    `${id} processed`,
  );
  return id;
}

const feedbackEvents = (email: any) => email.events.filter((e: any) => !['email.sent', 'email.delivered'].includes(e.type));

function dsn(options: { to: string; messageId: string; blocks: string[]; mbox?: boolean; eol?: string }): string {
  const eol = options.eol ?? '\r\n';
  return [
    ...(options.mbox ? ['From MAILER-DAEMON  Mon Nov 23 03:00:00 2026'] : []),
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    `To: ${options.to}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Message-ID: <dsn-1@mx.example.net>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain',
    '',
    'I am sorry to have to inform you that your message could not be delivered.',
    '--b1',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    '',
    options.blocks.join(`${eol}${eol}`),
    '',
    '--b1',
    'Content-Type: text/rfc822-headers',
    '',
    `From: ${FROM}`,
    'Subject: Your receipt',
    `Message-ID: ${options.messageId}`,
    '',
    '--b1--',
    '',
  ].join(eol);
}

const block = (address: string, action: string, status: string, diagnostic: string) =>
  [`Final-Recipient: rfc822; ${address}`, `Action: ${action}`, `Status: ${status}`, `Diagnostic-Code: smtp; ${diagnostic}`].join('\r\n');

function arf(options: { to: string; feedbackType?: string; originalRcptTo?: string; originalMailFrom?: string; returnPath?: string; messageId: string; originalTo: string }): string {
  return [
    'From: Feedback Loop <feedback@fbl.example.net>',
    `To: ${options.to}`,
    'Subject: FW: Your receipt',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="f1"',
    '',
    '--f1',
    'Content-Type: text/plain',
    '',
    'This is an email abuse report.',
    '--f1',
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${options.feedbackType ?? 'abuse'}`,
    'User-Agent: ExampleFBL/1.0',
    'Version: 1',
    ...(options.originalMailFrom ? [`Original-Mail-From: <${options.originalMailFrom}>`] : []),
    ...(options.originalRcptTo ? [`Original-Rcpt-To: <${options.originalRcptTo}>`] : []),
    '',
    '--f1',
    'Content-Type: message/rfc822',
    '',
    ...(options.returnPath ? [`Return-Path: <${options.returnPath}>`] : []),
    `From: ${FROM}`,
    `To: ${options.originalTo}`,
    'Subject: Your receipt',
    `Message-ID: ${options.messageId}`,
    '',
    'Thanks for your order.',
    '--f1--',
    '',
  ].join('\r\n');
}

async function suppression(address: string): Promise<any> {
  const res = await s.api.get(`/suppressions/${encodeURIComponent(address)}`);
  return res.status === 200 ? res.body : null;
}

describe('delivery status notifications at a VERP address', () => {
  test('when a 5.1.1 DSN arrives after delivered, then the recipient is bounced (hard), suppressed, and the event links to the raw report', async () => {
    const to = 'gone@example.test';
    const sent = await sendDelivered(to);
    const report = dsn({ to: sent.returnPaths[to]!, messageId: sent.messageId, blocks: [block(to, 'failed', '5.1.1', '550 5.1.1 <gone@example.test>: Recipient address rejected: User unknown')] });
    const inb = await deliver(sent.returnPaths[to]!, report);

    const email = await waitForEmail(s.api, sent.id, (e) => e.status === 'bounced');
    expect(email.recipients[0]).toMatchObject({ email: to, status: 'bounced', lastResponse: '550 5.1.1 <gone@example.test>: Recipient address rejected: User unknown' });
    expect(email.lastEvent).toBe('email.bounced');
    const [bounced, ...rest] = feedbackEvents(email);
    expect(rest).toEqual([]);
    expect(bounced).toMatchObject({
      type: 'email.bounced',
      data: {
        email_id: sent.id,
        recipient: to,
        from: FROM,
        to: [to],
        subject: 'Your receipt',
        smtp: { code: 550, enhanced_code: '5.1.1' },
        bounce: { type: 'hard', code: '5.1.1', message: '<gone@example.test>: Recipient address rejected: User unknown' },
        report: { received_email_id: inb, raw_url: `${PUBLIC_API_URL}/emails/received/${inb}/raw` },
      },
    });
    expect(await suppression(to)).toMatchObject({ reason: 'bounce' });

    // The link's path is readable by the project, and holds the report exactly as it arrived.
    const raw = await s.api.get(new URL(bounced.data.report.raw_url).pathname);
    expect(raw.status).toBe(200);
    expect(raw.text).toBe(report);
    const stored = await s.api.get(`/emails/received/${inb}`);
    expect(stored.body).toMatchObject({ routeId: null, subject: 'Undelivered Mail Returned to Sender' });

    // The same report delivered again: nothing more (one event, one suppression).
    await deliver(sent.returnPaths[to]!, report);
    const again = (await s.api.get(`/emails/${sent.id}`)).body;
    expect(feedbackEvents(again).map((e: any) => e.type)).toEqual(['email.bounced']);
    const { rows } = await t.pool.query({ text: 'SELECT reason FROM suppressions WHERE address = $1', values: [to] });
    expect(rows).toEqual([{ reason: 'bounce' }]);
  });

  test('when a 5.7.1 policy DSN arrives, then the recipient is bounced with type policy and not suppressed', async () => {
    const to = 'strict@example.test';
    const sent = await sendDelivered(to);
    await deliver(sent.returnPaths[to]!, dsn({ to: sent.returnPaths[to]!, messageId: sent.messageId, blocks: [block(to, 'failed', '5.7.1', '550 5.7.1 Message rejected as spam')] }));
    const email = await waitForEmail(s.api, sent.id, (e) => e.status === 'bounced');
    expect(feedbackEvents(email)).toMatchObject([{ type: 'email.bounced', data: { bounce: { type: 'policy', code: '5.7.1' } } }]);
    expect(await suppression(to)).toBeNull();
  });

  test('when a DSN says failed with 4.4.7 (expired), then a soft bounce, not suppressed', async () => {
    const to = 'slowpoke@example.test';
    const sent = await sendDelivered(to);
    await deliver(sent.returnPaths[to]!, dsn({ to: sent.returnPaths[to]!, messageId: sent.messageId, blocks: [block(to, 'failed', '4.4.7', '451 4.4.7 Delivery time expired')] }));
    const email = await waitForEmail(s.api, sent.id, (e) => e.status === 'bounced');
    expect(feedbackEvents(email)).toMatchObject([{ type: 'email.bounced', data: { smtp: { code: 451 }, bounce: { type: 'soft', code: '4.4.7' } } }]);
    expect(await suppression(to)).toBeNull();
  });

  test('when a delay report arrives after delivered, then the status stays delivered and the delay is on the timeline, once even if processed again', async () => {
    const to = 'later@example.test';
    const sent = await sendDelivered(to);
    const inb = await deliver(
      sent.returnPaths[to]!,
      dsn({ to: sent.returnPaths[to]!, messageId: sent.messageId, blocks: [block(to, 'delayed', '4.2.2', '452 4.2.2 Mailbox full, will retry')] }),
    );
    const email = await waitForEmail(s.api, sent.id, (e) => e.lastEvent === 'email.delivery_delayed');
    expect(email.status).toBe('delivered');
    expect(email.recipients[0].status).toBe('delivered');
    expect(feedbackEvents(email)).toMatchObject([
      { type: 'email.delivery_delayed', data: { smtp: { code: 452, enhanced_code: '4.2.2' }, report: { received_email_id: inb } } },
    ]);

    // A crash after the outcome and before the row was marked processed: processing it again records nothing more.
    await t.pool.query({ text: 'UPDATE received_emails SET processed_at = NULL WHERE id = $1', values: [inb] });
    const redis = createRedis('redis://127.0.0.1:6379', 'request');
    const eventQueue = new EventQueue(redis, t.config.queuePrefix);
    try {
      const logger = createLogger({ service: 'feedback-test', level: 'silent', pretty: false });
      const summary = await processReceivedEmails({ pool: t.pool, eventQueue, logger, mta: 'mx.test', dnsServers: ['127.0.0.1:1'], dnsBudgetMs: 200, dnsTimeoutMs: 100, feedback: { publicApiUrl: PUBLIC_API_URL } }, [inb]);
      expect(summary.stored).toEqual([inb]);
    } finally {
      await eventQueue.close();
      redis.disconnect();
    }
    expect(feedbackEvents((await s.api.get(`/emails/${sent.id}`)).body).map((e: any) => e.type)).toEqual(['email.delivery_delayed']);
  });

  test('when a remote server delivers the same delay report twice, then it is on the timeline once; a later, different delay report is added', async () => {
    const to = 'twice@example.test';
    const sent = await sendDelivered(to);
    const report = (id: string) =>
      dsn({ to: sent.returnPaths[to]!, messageId: sent.messageId, blocks: [block(to, 'delayed', '4.4.1', '451 4.4.1 No answer from host')] }).replace(
        'Message-ID: <dsn-1@mx.example.net>',
        `Message-ID: <${id}@mx.example.net>`,
      );
    await deliver(sent.returnPaths[to]!, report('delay-a'));
    await deliver(sent.returnPaths[to]!, report('delay-a'));
    await deliver(sent.returnPaths[to]!, report('delay-b'));
    const email = (await s.api.get(`/emails/${sent.id}`)).body;
    expect(feedbackEvents(email).map((e: any) => e.type)).toEqual(['email.delivery_delayed', 'email.delivery_delayed']);
    expect(email.status).toBe('delivered');
  });

  test('when a remote server delivers the same report without a Message-ID twice, then it is on the timeline once; a different one is added', async () => {
    const to = 'twice-noid@example.test';
    const sent = await sendDelivered(to);
    const report = (text: string) =>
      dsn({ to: sent.returnPaths[to]!, messageId: sent.messageId, blocks: [block(to, 'delayed', '4.4.1', text)] }).replace('Message-ID: <dsn-1@mx.example.net>\r\n', '');
    // No Message-ID of its own (the original's, inside it, is another's).
    expect(report('x').split(/\r?\n\r?\n/)[0]).not.toMatch(/^Message-ID:/im);
    await deliver(sent.returnPaths[to]!, report('451 4.4.1 No answer from host'));
    await deliver(sent.returnPaths[to]!, report('451 4.4.1 No answer from host'));
    await deliver(sent.returnPaths[to]!, report('451 4.4.1 Still no answer from host'));
    const email = (await s.api.get(`/emails/${sent.id}`)).body;
    expect(feedbackEvents(email).map((e: any) => e.type)).toEqual(['email.delivery_delayed', 'email.delivery_delayed']);
  });

  test('when the report names another recipient than the VERP address, then it is applied to the VERP address’s recipient', async () => {
    const sent = await sendDelivered(['first@example.test', 'second@example.test']);
    const returnPath = sent.returnPaths['second@example.test']!;
    // Only one block, about someone else: still about "second", whom the VERP address names.
    await deliver(returnPath, dsn({ to: returnPath, messageId: sent.messageId, blocks: [block('someone-else@example.test', 'failed', '5.1.1', '550 5.1.1 User unknown')] }));
    const email = await waitForEmail(s.api, sent.id, (e) => e.recipients.some((r: any) => r.status === 'bounced'));
    expect(email.recipients.map((r: any) => [r.email, r.status])).toEqual([
      ['first@example.test', 'delivered'],
      ['second@example.test', 'bounced'],
    ]);
    expect(feedbackEvents(email)).toMatchObject([{ type: 'email.bounced', data: { recipient: 'second@example.test' } }]);
    expect(await suppression('second@example.test')).toMatchObject({ reason: 'bounce' });
    expect(await suppression('someone-else@example.test')).toBeNull();
    expect(await suppression('first@example.test')).toBeNull();
  });

  test('when a report has several recipients, then the block naming the VERP recipient is used', async () => {
    const to = 'multi@example.test';
    const sent = await sendDelivered(to);
    await deliver(
      sent.returnPaths[to]!,
      dsn({
        to: sent.returnPaths[to]!,
        messageId: sent.messageId,
        blocks: [block('other@example.test', 'failed', '5.1.1', '550 5.1.1 User unknown'), block(to, 'failed', '5.2.2', '552 5.2.2 Mailbox full'), block('third@example.test', 'delivered', '2.0.0', '250 OK')],
      }),
    );
    const email = await waitForEmail(s.api, sent.id, (e) => e.status === 'bounced');
    expect(feedbackEvents(email)).toMatchObject([{ type: 'email.bounced', data: { recipient: to, bounce: { type: 'soft', code: '5.2.2' } } }]);
    expect(await suppression(to)).toBeNull();
  });

  test('when a report starts with an mbox From line and has bare LF line ends, then it is read all the same', async () => {
    const to = 'mbox@example.test';
    const sent = await sendDelivered(to);
    const returnPath = sent.returnPaths[to]!;
    const report = dsn({ to: returnPath, messageId: sent.messageId, blocks: [block(to, 'failed', '5.1.1', '550 5.1.1 No such user').replace(/\r\n/g, '\n')], mbox: true, eol: '\n' });
    expect(report).not.toContain('\r');
    // A raw client: nodemailer would turn the bare LFs into CRLF.
    const client = await RawSmtp.open(t.mx.port);
    await client.startMessage('', [returnPath]);
    client.write(`${report}\r\n.\r\n`);
    const reply = await client.reply();
    client.end();
    await processed(/queued as (inb_\w+)/.exec(reply)?.[1]);
    const email = await waitForEmail(s.api, sent.id, (e) => e.status === 'bounced');
    expect(feedbackEvents(email)).toMatchObject([{ type: 'email.bounced', data: { bounce: { type: 'hard', code: '5.1.1' } } }]);
  });

  test('when a report cannot be read, then a soft bounce with code null and its text; an automatic reply changes nothing', async () => {
    const to = 'odd@example.test';
    const sent = await sendDelivered(to);
    const returnPath = sent.returnPaths[to]!;
    await deliver(returnPath, `From: Ann <ann@example.test>\r\nTo: ${returnPath}\r\nSubject: Out of office\r\nAuto-Submitted: auto-replied\r\n\r\nI am away until Monday.\r\n`);
    expect(feedbackEvents((await s.api.get(`/emails/${sent.id}`)).body)).toEqual([]);

    await deliver(returnPath, `From: someone@example.test\r\nTo: ${returnPath}\r\nSubject: hmm\r\n\r\nSomething about your message went sideways.\r\n`);
    const email = await waitForEmail(s.api, sent.id, (e) => e.status === 'bounced');
    const [bounced] = feedbackEvents(email);
    expect(bounced.data.bounce).toMatchObject({ type: 'soft', code: null });
    expect(bounced.data.bounce.message).toContain('Something about your message went sideways.');
    expect(await suppression(to)).toBeNull();
  });
  test('when a French out-of-office reply (Auto-Submitted: auto-generated) arrives, then nothing; an Exim bounce quoting the reply mid-text then bounces with its code', async () => {
    const to = 'full.box@example.org';
    const sent = await sendDelivered(to);
    const returnPath = sent.returnPaths[to]!;
    const corpus = (file: string) => readFileSync(join(__dirname, 'feedback-corpus', file), 'latin1').replaceAll(CORPUS_VERP, returnPath);
    await deliver(returnPath, Buffer.from(corpus('auto-reply-exchange-fr.eml'), 'latin1'));
    expect(feedbackEvents((await s.api.get(`/emails/${sent.id}`)).body)).toEqual([]);

    await deliver(returnPath, Buffer.from(corpus('exim-multiline-over-quota.eml'), 'latin1'));
    const email = await waitForEmail(s.api, sent.id, (e) => e.status === 'bounced');
    expect(feedbackEvents(email)).toMatchObject([
      { type: 'email.bounced', data: { smtp: { code: 552, enhanced_code: '5.2.2', message: expect.stringContaining('552 5.2.2 The recipient') }, bounce: { type: 'soft', code: '5.2.2' } } },
    ]);
    expect(feedbackEvents(email)[0].data.smtp.message).not.toContain('552-5.2.2');
  });
});

describe('complaints (ARF)', () => {
  test('when an ARF report arrives at the VERP address, then complained and suppressed with reason complaint, once however often it arrives', async () => {
    const to = 'angry@example.test';
    const sent = await sendDelivered(to);
    const returnPath = sent.returnPaths[to]!;
    const report = arf({ to: returnPath, originalRcptTo: 'redacted@example.invalid', messageId: sent.messageId, originalTo: 'redacted@example.invalid' });
    const inb = await deliver(returnPath, report);
    const email = await waitForEmail(s.api, sent.id, (e) => e.status === 'complained');
    expect(email.recipients[0].status).toBe('complained');
    expect(feedbackEvents(email)).toMatchObject([
      { type: 'email.complained', data: { recipient: to, report: { received_email_id: inb, raw_url: `${PUBLIC_API_URL}/emails/received/${inb}/raw` } } },
    ]);
    expect(await suppression(to)).toMatchObject({ reason: 'complaint' });

    await deliver(returnPath, report);
    expect(feedbackEvents((await s.api.get(`/emails/${sent.id}`)).body).map((e: any) => e.type)).toEqual(['email.complained']);
  });

  test('when an ARF report arrives at fbl@ matched by Message-ID, then complained, and the report belongs to that project alone', async () => {
    const sent = await sendDelivered(['carol@example.test', 'dave@example.test']);
    // No VERP return path survives; Original-Rcpt-To names the complainer.
    const inb = await deliver(`fbl@${BOUNCE_DOMAIN}`, arf({ to: `fbl@${BOUNCE_DOMAIN}`, originalRcptTo: 'dave@example.test', messageId: sent.messageId, originalTo: 'carol@example.test, dave@example.test' }));
    const email = await waitForEmail(s.api, sent.id, (e) => e.status === 'complained');
    expect(email.recipients.map((r: any) => [r.email, r.status])).toEqual([
      ['carol@example.test', 'delivered'],
      ['dave@example.test', 'complained'],
    ]);
    expect(feedbackEvents(email)).toMatchObject([{ type: 'email.complained', data: { recipient: 'dave@example.test', report: { received_email_id: inb } } }]);
    expect(await suppression('dave@example.test')).toMatchObject({ reason: 'complaint' });

    const { rows } = await t.pool.query({ text: 'SELECT project_id FROM received_emails WHERE id = $1', values: [inb] });
    expect(rows).toEqual([{ project_id: s.projectId }]);
    expect((await s.api.get(`/emails/received/${inb}/raw`)).status).toBe(200);
    const other = await signUp(s.t.api);
    const otherApi = s.t.api.as({ token: (await createKey(other.as)).token });
    expect((await otherApi.get(`/emails/received/${inb}/raw`)).status).toBe(404);
    expect((await otherApi.get(`/emails/received/${inb}`)).status).toBe(404);
  });

  test('when an ARF report at fbl@ names by Message-ID an email never sent (scheduled, or canceled), then nothing is recorded and the email still goes out', async () => {
    const later = await s.api.post('/emails', { from: FROM, to: 'gina@example.test', subject: 'Later', text: 'Soon', scheduledAt: new Date(Date.now() + 4_000).toISOString() });
    const canceled = await s.api.post('/emails', { from: FROM, to: 'hank@example.test', subject: 'Never', text: 'No', scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await s.api.post(`/emails/${canceled.body.id}/cancel`)).status).toBe(200);
    for (const [id, to] of [[later.body.id, 'gina@example.test'], [canceled.body.id, 'hank@example.test']] as const) {
      await deliver(`fbl@${BOUNCE_DOMAIN}`, arf({ to: `fbl@${BOUNCE_DOMAIN}`, originalRcptTo: to, messageId: `<${id}@acme.test>`, originalTo: to }));
      expect(feedbackEvents((await s.api.get(`/emails/${id}`)).body)).toEqual([]);
      expect(await suppression(to)).toBeNull();
    }
    const sent = await waitForEmail(s.api, later.body.id, isFinished);
    expect(sent.status).toBe('delivered');
    expect((await s.api.get(`/emails/${canceled.body.id}`)).body.status).toBe('canceled');
  });

  test('when an ARF report at fbl@ carries the VERP return path, then the recipient it names complained', async () => {
    const sent = await sendDelivered(['erin@example.test', 'frank@example.test']);
    const returnPath = sent.returnPaths['erin@example.test']!;
    await deliver(`fbl@${BOUNCE_DOMAIN}`, arf({ to: `fbl@${BOUNCE_DOMAIN}`, returnPath, messageId: '<redacted@example.invalid>', originalTo: 'redacted' }));
    const email = await waitForEmail(s.api, sent.id, (e) => e.status === 'complained');
    expect(email.recipients.map((r: any) => [r.email, r.status])).toEqual([
      ['erin@example.test', 'complained'],
      ['frank@example.test', 'delivered'],
    ]);
  });

  test('when a report is not-spam, or matches no sent email, then it is stored with no outcome', async () => {
    const to = 'happy@example.test';
    const sent = await sendDelivered(to);
    const notSpam = await deliver(`fbl@${BOUNCE_DOMAIN}`, arf({ to: `fbl@${BOUNCE_DOMAIN}`, feedbackType: 'not-spam', messageId: sent.messageId, originalTo: to }));
    const unmatched = await deliver(`fbl@${BOUNCE_DOMAIN}`, arf({ to: `fbl@${BOUNCE_DOMAIN}`, messageId: '<em_01JF8X2K9M3N4P5Q6R7S8T9V0W@acme.test>', originalTo: to }));
    expect(feedbackEvents((await s.api.get(`/emails/${sent.id}`)).body)).toEqual([]);
    expect(await suppression(to)).toBeNull();
    const { rows } = await t.pool.query({ text: 'SELECT id, project_id, processed_at IS NOT NULL AS processed FROM received_emails WHERE id = ANY($1) ORDER BY id', values: [[notSpam, unmatched]] });
    // Matched (not-spam is about this email) → the project can read it; unmatched → no project.
    expect(rows).toEqual([
      { id: notSpam, project_id: s.projectId, processed: true },
      { id: unmatched, project_id: null, processed: true },
    ]);
  });
});
