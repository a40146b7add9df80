import { createResolver } from '@mailroom/core';
import { authenticate } from 'mailauth';
import { DnsServer, type DnsZone } from '../../../test/support/dns-server';
import { publish } from '../../../test/support/published-records';
import { startSendingStack, waitForEmail, type SendingStack } from '../../../test/support/sending';
import { SmtpSink, type SinkMessage } from '../../../test/support/smtp-sink';
import { until } from '../../../test/support/until';

/** SPF, DKIM and DMARC as mailauth (not our code) judges a message received from 127.0.0.1, with the test zone. */
async function judge(message: SinkMessage | Buffer, envelopeFrom: string, dns: DnsServer) {
  const resolver = createResolver([dns.address], 1_000);
  const raw = Buffer.isBuffer(message) ? message : message.raw;
  // mailauth 4.13's bundled types describe the options loosely.
  const result = await authenticate(raw, {
    ip: '127.0.0.1',
    helo: 'sender.mailroom.test',
    sender: envelopeFrom,
    mta: 'mx.receiver.test',
    resolver: ((name: string, type: string) => resolver.resolve(name, type)) as never,
    disableBimi: true,
  } as never);
  return {
    spf: result.spf ? { result: result.spf.status.result, domain: result.spf.domain } : null,
    dkim: result.dkim.results.map((r) => ({ result: r.status.result, domain: r.signingDomain, selector: r.selector, aligned: Boolean(r.status.aligned) })),
    dmarc: result.dmarc ? { result: result.dmarc.status.result, domain: result.dmarc.domain } : null,
  };
}

const flipBodyByte = (raw: Buffer) => {
  const copy = Buffer.from(raw);
  const at = copy.indexOf('Hello from Acme');
  copy[at] = 0x4a; // "H" → "J"
  return copy;
};

describe('mail from a verified sending domain', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let s: SendingStack;
  let zone: DnsZone;

  beforeAll(async () => {
    dns = await new DnsServer().start();
    sink = await new SmtpSink({ starttls: false }).start();
    s = await startSendingStack('domainsend', {
      OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      DNS_SERVERS: dns.address,
      DOMAIN_MX_HOST: 'mx.mailroom.test',
      DOMAIN_SPF_MECHANISMS: 'ip4:127.0.0.1',
    });
  });
  afterAll(async () => {
    await s.close();
    await sink.stop();
    await dns.stop();
  });

  async function sendAndReceive(subject: string): Promise<SinkMessage> {
    const before = sink.messages.length;
    const { body } = await s.api.post('/emails', { from: 'Acme <hello@acme.example>', to: 'alice@example.com', subject, html: '<p>Hello from Acme</p>', text: 'Hello from Acme' });
    await waitForEmail(s.api, body.id, (e) => e.status === 'delivered');
    const [message] = (await sink.waitFor(before + 1)).slice(before);
    return message as SinkMessage;
  }

  test('when the DNS holds exactly the records /domains gave, then the mail passes DKIM, SPF and DMARC as mailauth checks it, aligned, and fails DKIM once a body byte changes', async () => {
    const { body: added } = await s.api.post('/domains', { name: 'acme.example' });
    zone = publish(added.records);
    dns.setZone(zone);
    const domain = (await s.api.post(`/domains/${added.id}/verify`)).body;
    expect(domain.status).toBe('verified');

    const message = await sendAndReceive('Signed');
    expect(message.from).toMatch(/^bounces\+rcpt_[0-9a-z]{26}-[0-9a-f]{12}@bounces\.acme\.example$/i);
    expect(await judge(message, message.from, dns)).toEqual({
      spf: { result: 'pass', domain: 'bounces.acme.example' },
      dkim: [{ result: 'pass', domain: 'acme.example', selector: domain.dkimSelector, aligned: true }],
      dmarc: { result: 'pass', domain: 'acme.example' },
    });

    const tampered = await judge(flipBodyByte(message.raw), message.from, dns);
    expect(tampered.dkim).toEqual([expect.objectContaining({ result: expect.not.stringMatching(/^pass$/), domain: 'acme.example' })]);
    // SPF on the aligned return path is independent of the body: DMARC still passes through it.
    expect(tampered.spf).toEqual({ result: 'pass', domain: 'bounces.acme.example' });
  });

  test('when the key is rotated, then mail keeps the old key until the new record is verified, uses the new one after, and mail signed before and after both verify during the overlap', async () => {
    const { body: list } = await s.api.get('/domains');
    const id = list.data[0].id as string;
    const oldSelector = list.data[0].dkimSelector as string;
    const before = await sendAndReceive('Before rotation');

    const rotating = (await s.api.post(`/domains/${id}/rotate-dkim`)).body;
    const next = rotating.records.find((r: any) => r.keyState === 'next');
    expect(next).toMatchObject({ record: 'dkim', status: 'pending', required: false });
    expect(rotating.dkimSelector).toBe(oldSelector);
    const during = await sendAndReceive('While the new record is unpublished');
    expect((await judge(during, during.from, dns)).dkim).toEqual([expect.objectContaining({ result: 'pass', selector: oldSelector })]);

    dns.setZone(publish([next], zone));
    const rotated = (await s.api.post(`/domains/${id}/verify`)).body;
    expect(rotated).toMatchObject({ status: 'verified', dkimSelector: next.selector });
    expect(rotated.records.filter((r: any) => r.record === 'dkim').map((r: any) => [r.selector, r.keyState, r.status])).toEqual([
      [next.selector, 'current', 'verified'],
      [oldSelector, 'previous', 'verified'],
    ]);

    const after = await sendAndReceive('After rotation');
    expect((await judge(after, after.from, dns)).dkim).toEqual([expect.objectContaining({ result: 'pass', selector: next.selector, aligned: true })]);
    // Mail signed before the rotation still verifies: the old record stays published.
    expect((await judge(before, before.from, dns)).dkim).toEqual([expect.objectContaining({ result: 'pass', selector: oldSelector })]);
  });

  test('when a domain is not verified, then its mail goes unsigned with the BOUNCE_DOMAIN return path', async () => {
    const { body } = await s.api.post('/emails', { from: 'hello@unverified.example', to: 'bob@example.com', subject: 'Unsigned', text: 'Hi' });
    expect(body.unsigned).toBe(true);
    await waitForEmail(s.api, body.id, (e) => e.status === 'delivered');
    const message = sink.messages.find((m) => m.recipients.includes('bob@example.com'));
    expect(message?.from).toMatch(/@bounces\.localhost$/);
    expect(message?.raw.toString()).not.toMatch(/^DKIM-Signature:/im);
  });

  test('when a domain check is due, then the scheduled check looks it up and verifies it', async () => {
    const { body: added } = await s.api.post('/domains', { name: 'scheduled.example' });
    dns.setZone(publish(added.records, { ...zone }));
    // Due now, whatever the sender's own schedule already did with it (a new domain is checked at
    // once, and may have been looked up before the records were published, then backed off). The
    // sender's scheduled tick runs the same check and may claim the domain first, so the test
    // makes it due and runs a check until one of them has verified it.
    await until(
      async () => {
        await s.t.gateway.ctx.pool.query({ text: "UPDATE domains SET next_check_at = now() AT TIME ZONE 'UTC' WHERE id = $1 AND status <> 'verified'", values: [added.id] });
        await s.sender.checkDomains();
        return (await s.api.get(`/domains/${added.id}`)).body.status === 'verified';
      },
      10_000,
      'the scheduled domain check to verify the domain',
      100,
    );
    expect((await s.api.get(`/domains/${added.id}`)).body).toMatchObject({ status: 'verified', lastCheckedAt: expect.any(String) });
    // Checked now: not due again until its next check.
    const { rows } = await s.t.gateway.ctx.pool.query<{ due: boolean }>({ text: "SELECT next_check_at > now() AT TIME ZONE 'UTC' AS due FROM domains WHERE id = $1", values: [added.id] });
    expect(rows[0]?.due).toBe(true);
  });
});
