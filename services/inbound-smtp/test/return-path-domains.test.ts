import { DnsServer } from '../../../test/support/dns-server';
import { publish } from '../../../test/support/published-records';
import { type SendingStack, startSendingStack, waitForEmail } from '../../../test/support/sending';
import { SmtpSink } from '../../../test/support/smtp-sink';
import { expectCode, RawSmtp, startTestMx, type TestMx } from './smtp-support';

// Mail from a verified domain bounces to its return-path subdomain (DESIGN §7): the real MX must
// accept the VERP address there, and processing must apply the report to the recipient.
let dns: DnsServer;
let sink: SmtpSink;
let s: SendingStack;
let t: TestMx;

beforeAll(async () => {
  dns = await new DnsServer().start();
  sink = await new SmtpSink({ starttls: false }).start();
  s = await startSendingStack('rpdomains', { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, DNS_SERVERS: dns.address });
  t = await startTestMx({ database: s.t.database, env: { RECONCILE_INTERVAL_SECONDS: '1' } });
});
afterAll(async () => {
  await t.close();
  await s.close();
  await sink.stop();
  await dns.stop();
});

const dsn = (to: string, recipient: string) =>
  [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    `To: ${to}`,
    'Subject: Undelivered Mail Returned to Sender',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
    '',
    '--b1',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    'Action: failed',
    'Status: 5.1.1',
    'Diagnostic-Code: smtp; 550 5.1.1 User unknown',
    '',
    '--b1--',
    '',
  ].join('\r\n');

test("when a bounce arrives at its mail's return-path subdomain, then the MX accepts it and the recipient is bounced, even after the domain is deleted; at another domain's subdomain the same address is refused", async () => {
  const { body: added } = await s.api.post('/domains', { name: 'acme.test' });
  dns.setZone(publish(added.records));
  expect((await s.api.post(`/domains/${added.id}/verify`)).body.status).toBe('verified');
  const { body } = await s.api.post('/emails', { from: 'hello@acme.test', to: 'gone@example.test', subject: 'Receipt', text: 'Thanks' });
  await waitForEmail(s.api, body.id, (e) => e.status === 'delivered');
  const returnPath = sink.messages.find((m) => m.recipients.includes('gone@example.test'))?.from ?? '';
  expect(returnPath).toMatch(/@bounces\.acme\.test$/);

  // The domain deleted (or its records gone) after the mail left: its bounces still count.
  expect((await s.api.delete(`/domains/${added.id}`)).status).toBe(200);

  const smtp = await RawSmtp.open(t.mx.port);
  await smtp.reply();
  expectCode(await smtp.command('EHLO mx.example.net'), 250);
  expectCode(await smtp.command('MAIL FROM:<>'), 250);
  // The same valid MAC at the return-path subdomain of a domain the mail was not sent from, or at
  // the domain itself: refused, never an open relay.
  expectCode(await smtp.command(`RCPT TO:<${returnPath.replace('@bounces.acme.test', '@bounces.other.test')}>`), 550);
  expectCode(await smtp.command(`RCPT TO:<${returnPath.replace('@bounces.acme.test', '@acme.test')}>`), 550);
  expectCode(await smtp.command(`RCPT TO:<${returnPath.replace('@bounces.acme.test', '@other.bounces.acme.test')}>`), 550);
  expectCode(await smtp.command(`RCPT TO:<${returnPath.replace(/-[0-9a-f]{12}@/, '-000000000000@')}>`), 550);
  expectCode(await smtp.command(`RCPT TO:<${returnPath}>`), 250);
  expectCode(await smtp.command('DATA'), 354);
  expectCode(await smtp.command(`${dsn(returnPath, 'gone@example.test')}\r\n.`), 250);
  await smtp.command('QUIT').catch(() => undefined);

  const email = await waitForEmail(s.api, body.id, (e) => e.status === 'bounced', 20_000);
  expect(email.recipients[0]).toMatchObject({ email: 'gone@example.test', status: 'bounced' });
  expect(email.events.map((e: any) => e.type)).toContain('email.bounced');
});
