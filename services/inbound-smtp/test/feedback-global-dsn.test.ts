import { join } from 'node:path';
import { runPythonJson } from '../../../test/support/python-script';
import { isFinished, type SendingStack, waitForEmail } from '../../../test/support/sending';
import type { SmtpSink } from '../../../test/support/smtp-sink';
import { type FeedbackStack, startFeedbackStack } from './feedback-stack';
import { type TestMx, until } from './smtp-support';

/**
 * RFC 6533 global delivery status notifications, end to end as feedback-e2e.test.ts runs RFC 3464
 * ones: mail really sent by the sender to an internationalized domain, the bounce delivered to the
 * real MX at its VERP return path by Python's smtplib with SMTPUTF8 (an SMTP client independent of
 * ours), as multipart/report with a message/global-delivery-status part (UTF-8 addresses and
 * diagnostics) and the original as message/global. Each report is delivered a second time, to
 * another email, as message/delivery-status with message/rfc822 and RFC 6533's `\x{…}` escapes
 * in its addresses: both must become the same outcome.
 */
const BOUNCE_DOMAIN = 'bounces.mailroom.test';
const PUBLIC_API_URL = 'https://api.mailroom.test';
const FROM = 'Acme <hello@acme.test>';
const DOMAIN = 'exämple.org';
const A_LABEL_DOMAIN = 'xn--exmple-cua.org';
const SMTPLIB = join(__dirname, 'support', 'eai-smtplib.py');
const PYTHON = process.env.SMTPLIB_PYTHON ?? '/usr/bin/python3';

let stack: FeedbackStack;
let sink: SmtpSink;
let s: SendingStack;
let t: TestMx;

beforeAll(async () => {
  stack = await startFeedbackStack('fbglobal', BOUNCE_DOMAIN, PUBLIC_API_URL);
  ({ sink, s, t } = stack);
});
afterAll(() => stack.close());

/** Sends one email to `local@exämple.org` through the API, waits until delivered; returns its id and VERP return path. */
async function sendDelivered(local: string): Promise<{ id: string; returnPath: string }> {
  const res = await s.api.post('/emails', { from: FROM, to: `${local}@${DOMAIN}`, subject: 'Ihre Bestellbestätigung', text: 'Danke für Ihre Bestellung.' });
  expect(res.status).toBe(200);
  const id = res.body.id as string;
  expect((await waitForEmail(s.api, id, isFinished)).status).toBe('delivered');
  const sent = sink.messages.find((m) => m.raw.includes(`<${id}@acme.test>`));
  if (!sent) throw new Error(`the sink has no message for ${id}`);
  return { id, returnPath: sent.from };
}

interface SmtplibResult {
  refused: Record<string, [number, string]>;
  error: string | null;
}

/** Delivers a report from the null sender with SMTPUTF8 and 8BITMIME (Python's smtplib); returns the stored inb_ id once processed. */
async function deliver(returnPath: string, report: string): Promise<string> {
  const result = await runPythonJson<SmtplibResult>({
    python: PYTHON,
    script: SMTPLIB,
    args: [String(t.mx.port)],
    input: JSON.stringify({ from: '', to: [returnPath], message: Buffer.from(report).toString('base64'), options: ['SMTPUTF8', 'BODY=8BITMIME'] }),
    missing: { message: `no Python 3 at ${PYTHON}: install Debian's python3, or set SMTPLIB_PYTHON` },
  });
  expect(result).toMatchObject({ refused: {}, error: null });
  const stored = async () =>
    (
      await t.pool.query<{ id: string; done: boolean }>({
        text: 'SELECT id, processed_at IS NOT NULL AS done FROM received_emails WHERE $1 = ANY(rcpt_to) ORDER BY id DESC LIMIT 1',
        values: [returnPath],
      })
    ).rows[0];
  await until(async () => (await stored())?.done === true, 10_000, `the report to ${returnPath} processed`);
  return (await stored())?.id as string;
}

interface Block {
  recipient: string;
  action: string;
  status: string;
  diagnostic: string;
}

/**
 * A bounce for the email `messageId` sent with `returnPath`: global (RFC 6533, UTF-8 as is), or
 * the same report as RFC 3464 types, its addresses in RFC 6533 §3's `utf-8` escapes; with the
 * whole original, or (`headersOnly`) only its header section.
 */
function report(options: { returnPath: string; messageId: string; to: string; blocks: Block[]; global: boolean; headersOnly?: boolean }): string {
  const address = (a: string) => (options.global ? a : a.replace(/\P{ASCII}/gu, (c) => `\\x{${(c.codePointAt(0) as number).toString(16).toUpperCase()}}`));
  const blocks = options.blocks.map((b) =>
    [`Final-Recipient: utf-8; ${address(b.recipient)}`, `Action: ${b.action}`, `Status: ${b.status}`, `Diagnostic-Code: smtp; ${b.diagnostic}`].join('\r\n'),
  );
  return [
    `From: Mail Delivery System <MAILER-DAEMON@mx.${DOMAIN}>`,
    `To: ${options.returnPath}`,
    'Subject: Unzustellbar: Ihre Bestellbestätigung',
    `Message-ID: <dsn.${options.messageId.slice(1, options.messageId.indexOf('@'))}@mx.${DOMAIN}>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="g1"',
    '',
    '--g1',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    'Ihre Nachricht konnte nicht an alle Empfänger zugestellt werden.',
    '--g1',
    `Content-Type: message/${options.global ? 'global-delivery-status' : 'delivery-status'}`,
    '',
    `Reporting-MTA: dns; mx.${DOMAIN}`,
    '',
    blocks.join('\r\n\r\n'),
    '',
    '--g1',
    options.headersOnly ? `Content-Type: ${options.global ? 'message/global-headers' : 'text/rfc822-headers'}` : `Content-Type: message/${options.global ? 'global' : 'rfc822'}`,
    '',
    `Return-Path: <${options.returnPath}>`,
    `From: ${FROM}`,
    `To: ${address(options.to)}`,
    'Subject: Ihre Bestellbestätigung',
    `Message-ID: ${options.messageId}`,
    '',
    ...(options.headersOnly ? [] : ['Danke für Ihre Bestellung.']),
    '--g1--',
    '',
  ].join('\r\n');
}

const feedbackEvents = (email: any) => email.events.filter((e: any) => !['email.sent', 'email.delivered'].includes(e.type));

async function suppressed(address: string): Promise<boolean> {
  return (await s.api.get(`/suppressions/${encodeURIComponent(address)}`)).status === 200;
}

interface Case {
  name: string;
  /** The report's blocks for the recipient `local@exämple.org`. */
  blocks: (local: string) => Block[];
  until: (email: any) => boolean;
  event: Record<string, unknown>;
  status: string;
  suppressed: boolean;
}

const CASES: Case[] = [
  {
    name: 'a 5.1.1 naming the recipient in U-labels',
    blocks: (local) => [{ recipient: `${local}@${DOMAIN}`, action: 'failed', status: '5.1.1', diagnostic: `550 5.1.1 <zoë@${DOMAIN}>: Empfänger unbekannt` }],
    until: (e) => e.status === 'bounced',
    event: { type: 'email.bounced', data: { smtp: { code: 550, enhanced_code: '5.1.1' }, bounce: { type: 'hard', code: '5.1.1', message: `<zoë@${DOMAIN}>: Empfänger unbekannt` } } },
    status: 'bounced',
    suppressed: true,
  },
  {
    name: 'several blocks, the recipient’s (in U-labels) after another’s',
    blocks: (local) => [
      { recipient: `anderer@${DOMAIN}`, action: 'failed', status: '5.1.1', diagnostic: '550 5.1.1 Benutzer unbekannt' },
      { recipient: `${local}@${DOMAIN}`, action: 'failed', status: '5.2.2', diagnostic: '552 5.2.2 Postfach von Zoë ist voll (用户邮箱已满)' },
    ],
    until: (e) => e.status === 'bounced',
    event: { type: 'email.bounced', data: { smtp: { code: 552, enhanced_code: '5.2.2', message: 'Postfach von Zoë ist voll (用户邮箱已满)' }, bounce: { type: 'soft', code: '5.2.2' } } },
    status: 'bounced',
    suppressed: false,
  },
  {
    name: 'a delay',
    blocks: (local) => [{ recipient: `${local}@${DOMAIN}`, action: 'delayed', status: '4.4.1', diagnostic: '451 4.4.1 Keine Antwort vom Server — wird erneut versucht' }],
    until: (e) => e.lastEvent === 'email.delivery_delayed',
    event: { type: 'email.delivery_delayed', data: { smtp: { code: 451, enhanced_code: '4.4.1', message: 'Keine Antwort vom Server — wird erneut versucht' } } },
    status: 'delivered',
    suppressed: false,
  },
];

describe('global delivery status notifications (RFC 6533) at a VERP address', () => {
  test.each(CASES.map((c, i) => [c.name, i] as const))('when a global DSN with %s arrives over SMTPUTF8, then the outcome is the one its RFC 3464 form gives', async (_name, i) => {
    const c = CASES[i] as Case;
    const outcomes = [];
    for (const global of [true, false]) {
      const local = `zoe.${i}.${global ? 'global' : 'rfc3464'}`;
      const sent = await sendDelivered(local);
      const inb = await deliver(sent.returnPath, report({ returnPath: sent.returnPath, messageId: `<${sent.id}@acme.test>`, to: `${local}@${DOMAIN}`, blocks: c.blocks(local), global }));
      const email = await waitForEmail(s.api, sent.id, c.until);
      const recipient = `${local}@${A_LABEL_DOMAIN}`;
      expect(email.recipients).toMatchObject([{ email: recipient, status: c.status }]);
      const events = feedbackEvents(email);
      expect(events).toMatchObject([{ ...c.event, data: { ...(c.event.data as object), email_id: sent.id, recipient, report: { received_email_id: inb } } }]);
      expect(await suppressed(recipient)).toBe(c.suppressed);
      if (c.blocks(local).length > 1) expect(await suppressed(`anderer@${A_LABEL_DOMAIN}`)).toBe(false);
      const { type, data } = events[0];
      outcomes.push({ type, smtp: data.smtp, bounce: data.bounce });
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
  });

  test('when a global DSN returns only the headers (message/global-headers), then it bounces all the same, and the project reads it as received mail', async () => {
    const local = 'zoe.headers';
    const sent = await sendDelivered(local);
    const blocks = CASES[0]?.blocks(local) ?? [];
    const inb = await deliver(sent.returnPath, report({ returnPath: sent.returnPath, messageId: `<${sent.id}@acme.test>`, to: `${local}@${DOMAIN}`, blocks, global: true, headersOnly: true }));
    const email = await waitForEmail(s.api, sent.id, (e) => e.status === 'bounced');
    expect(feedbackEvents(email)).toMatchObject([{ type: 'email.bounced', data: { bounce: { type: 'hard', code: '5.1.1' }, report: { received_email_id: inb } } }]);
    const stored = await s.api.get(`/emails/received/${inb}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({
      routeId: null,
      subject: 'Unzustellbar: Ihre Bestellbestätigung',
      from: { address: `MAILER-DAEMON@mx.${DOMAIN}`, name: 'Mail Delivery System' },
      text: 'Ihre Nachricht konnte nicht an alle Empfänger zugestellt werden.',
    });
    expect(stored.body.attachments.map((a: any) => a.contentType)).toEqual(['message/global-delivery-status', 'message/global-headers']);
  });
});
