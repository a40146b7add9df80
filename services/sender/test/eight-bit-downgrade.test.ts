import { isAscii } from 'node:buffer';
import { createHash, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { DnsServer } from '../../../test/support/dns-server';
import { publish } from '../../../test/support/published-records';
import { isFinished, type SendingStack, startSendingStack, waitForEmail } from '../../../test/support/sending';
import type { Deliverer, DeliveryOutcome } from '../src/delivery';
import { type DkimKey, MessageSigner } from '../src/message/sign-dkim';
import { type AiosmtpdConfig, AiosmtpdPeer } from './support/aiosmtpd-peer';
import { dkimpyVerify, type TxtRecord } from './support/dkimpy';
import { crlf, FORWARDED, FORWARDING_MESSAGE, GERMAN, OUTER_TEXT, PNG, withForwarded } from './support/forwarded-message';
import { peerDeliverers } from './support/peer-deliverers';
import { type ClientView, readEmail } from './support/read-email';

/*
 * A message with 8-bit content toward a next hop that offers no 8BITMIME (RFC 6152 §3): it goes as
 * a 7-bit copy, each 8-bit part re-encoded, DKIM-signed after the downgrade; or, where no copy can
 * carry it, it bounces 5.6.3 without a byte sent. aiosmtpd (an SMTP server independent of
 * nodemailer) receives; dkimpy verifies and Python's email package reads, both independent too.
 */

const sha256 = (content: Buffer) => createHash('sha256').update(content).digest('hex');

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const KEY: DkimKey = { domain: 'acme.test', selector: 's1', privateKey: createPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' })) };
const RECORDS: TxtRecord[] = [{ name: 's1._domainkey.acme.test', value: `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}` }];

const MESSAGE = FORWARDING_MESSAGE;
/** A forwarded message with a raw UTF-8 header field: only SMTPUTF8 could carry it (RFC 6532), no 7-bit copy. */
const UNDOWNGRADABLE = withForwarded(crlf(['From: Jörg <joerg@example.org>', 'Subject: Grüße', 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', '', 'Grüße', '']));

/** The message without the DKIM-Signature field the deliverer put first. */
function unsigned(raw: Buffer): Buffer {
  const field = /^DKIM-Signature:[^\r\n]*(?:\r\n[ \t][^\r\n]*)*\r\n/.exec(raw.toString('latin1'));
  if (!field) throw new Error('the message has no DKIM-Signature first');
  return raw.subarray(field[0].length);
}

/** What a mail client shows: the text, the HTML and every other leaf part (decoded, by hash), the nested message's too. */
const shown = (view: ClientView) => ({ subject: view.subject, text: view.text, html: view.html, attachments: view.attachments });

describe('8-bit content toward a next hop without 8BITMIME', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function peer(config: AiosmtpdConfig): Promise<AiosmtpdPeer> {
    const started = await AiosmtpdPeer.start(config);
    cleanups.push(() => started.stop());
    return started;
  }

  const { deliverer, direct } = peerDeliverers(cleanups, 10_000);
  const relay = (port: number) => deliverer({ mxPort: 1, outboundSmtpUrl: `smtp://127.0.0.1:${port}` });
  const signer = new MessageSigner(KEY);

  /** Delivers each message, signed, one after the other, then stops both, so that everything the peer printed has been read. */
  async function deliverAndStop(d: Deliverer, mx: AiosmtpdPeer, ...raws: Buffer[]): Promise<DeliveryOutcome[]> {
    const outcomes: DeliveryOutcome[] = [];
    for (const raw of raws) {
      outcomes.push(await d.deliver({ envelopeFrom: 'bounces@acme.test', recipient: 'x@example.test', raw, sign: (r) => signer.sign(r) }));
    }
    await d.close();
    await mx.stop();
    return outcomes;
  }

  test('when a message has an 8bit text part and a forwarded UTF-8 message/rfc822 and the MX offers no 8BITMIME, then a 7-bit copy arrives, without BODY=8BITMIME, every part decoding to its original bytes, the rest byte for byte, its signature verifying', async () => {
    const mx = await peer({ eightBitMime: false });

    const [outcome] = await deliverAndStop(await direct(mx.port), mx, MESSAGE);

    expect(outcome).toMatchObject({ kind: 'delivered', smtp: { code: 250 } });
    // One MAIL: the message as built was held back before MAIL, on seeing no 8BITMIME.
    expect(mx.mails).toHaveLength(1);
    expect(mx.messages).toHaveLength(1);
    expect(mx.messages[0]?.mailOptions.filter((o) => o.startsWith('BODY='))).toEqual([]);
    const received = mx.messages[0]?.content ?? Buffer.alloc(0);
    expect(isAscii(received)).toBe(true);
    expect((await dkimpyVerify(received, RECORDS)).map((v) => ({ pass: v.pass, reason: v.reason }))).toEqual([{ pass: true, reason: null }]);

    // A reader gets every part back exactly: the text, the image and each part of the forwarded message (by their hashes).
    const [before, after] = await Promise.all([readEmail(MESSAGE), readEmail(received)]);
    expect(before.text).toBe(OUTER_TEXT);
    expect(before.attachments.map((a) => [a.contentType, a.sha256])).toEqual([
      ['image/png', sha256(PNG)],
      ['text/plain', sha256(Buffer.from(GERMAN))],
      ['text/calendar', expect.any(String)],
    ]);
    expect(shown(after)).toEqual(shown(before));
    expect(after.defects).toEqual([]);

    // Byte for byte: the header sections, the preamble, the image part, the 7-bit part, the end.
    const copy = unsigned(received).toString('latin1');
    const original = MESSAGE.toString('latin1');
    const between = (from: string, to: string) => original.slice(original.indexOf(from), original.indexOf(to, original.indexOf(from) + 1));
    expect(copy.startsWith(between('From: Acme', '--outer\r\nContent-Type: text/plain'))).toBe(true);
    expect(copy).toContain(between('--outer\r\nContent-Type: image/png', '--outer\r\nContent-Type: message/rfc822'));
    expect(copy).toContain(between('From: =?UTF-8?Q?J=C3=B6rg?=', '--inner\r\n'));
    expect(copy).toContain(between('--inner\r\nContent-Type: text/calendar', '--outer--'));
    // The composite's own encoding is 7bit now; each 8bit leaf says what it became.
    expect(copy).toContain('Content-Type: message/rfc822\r\nContent-Transfer-Encoding: 7bit\r\nContent-Disposition: attachment; filename=forwarded.eml\r\n\r\n');
    expect(copy.match(/^Content-Transfer-Encoding: .*$/gim)).toEqual([
      'Content-Transfer-Encoding: quoted-printable',
      'Content-Transfer-Encoding: base64',
      'Content-Transfer-Encoding: 7bit',
      'Content-Transfer-Encoding: quoted-printable',
      'Content-Transfer-Encoding: base64',
    ]);
  });

  test('when the smarthost offers 8BITMIME, then the message goes as it is, signed, with BODY=8BITMIME', async () => {
    const mx = await peer({ eightBitMime: true });

    const [outcome] = await deliverAndStop(relay(mx.port), mx, MESSAGE);

    expect(outcome).toMatchObject({ kind: 'delivered' });
    expect(mx.messages[0]?.mailOptions).toContain('BODY=8BITMIME');
    const received = mx.messages[0]?.content ?? Buffer.alloc(0);
    expect(unsigned(received).equals(MESSAGE)).toBe(true);
    expect((await dkimpyVerify(received, RECORDS)).map((v) => v.pass)).toEqual([true]);
  });

  test('when a forwarded message has a raw UTF-8 header field and the MX offers no 8BITMIME, then it bounces 5.6.3 without MAIL, never suppressing', async () => {
    const mx = await peer({ eightBitMime: false });

    const [outcome] = await deliverAndStop(await direct(mx.port), mx, UNDOWNGRADABLE);

    expect(outcome).toEqual({
      kind: 'bounced',
      bounceType: 'hard',
      suppress: false,
      smtp: { code: null, enhancedCode: '5.6.3', message: expect.stringMatching(/no 8BITMIME .* header field has 8-bit bytes \(that needs SMTPUTF8/) },
      code: '5.6.3',
    });
    expect(mx.mails).toEqual([]);
    expect(mx.messages).toEqual([]);
  });

  test('when that message goes to a smarthost that offers 8BITMIME, then it is delivered as it is', async () => {
    const mx = await peer({ eightBitMime: true });

    const [outcome] = await deliverAndStop(relay(mx.port), mx, UNDOWNGRADABLE);

    expect(outcome).toMatchObject({ kind: 'delivered' });
    expect(unsigned(mx.messages[0]?.content ?? Buffer.alloc(0)).equals(UNDOWNGRADABLE)).toBe(true);
  });

  test('when 8-bit, undowngradable and 7-bit messages follow one another over the pooled connection to a smarthost without 8BITMIME, then each ends as it should (the session is reset, not lost)', async () => {
    const mx = await peer({ eightBitMime: false });
    const plain = crlf(['From: a@acme.test', 'To: x@example.test', 'Subject: plain', 'MIME-Version: 1.0', '', 'Hello.', '']);

    const outcomes = await deliverAndStop(relay(mx.port), mx, MESSAGE, UNDOWNGRADABLE, plain, MESSAGE);

    expect(outcomes.map((o) => o.kind)).toEqual(['delivered', 'bounced', 'delivered', 'delivered']);
    expect(mx.messages.map((m) => isAscii(m.content))).toEqual([true, true, true]);
    expect(unsigned(mx.messages[1]?.content ?? Buffer.alloc(0)).equals(plain)).toBe(true);
  });
});

describe('8-bit content through the gateway and the sender to a smarthost without 8BITMIME', () => {
  const FROM = 'Acme <hello@acme.example>';
  let dns: DnsServer;
  let mx: AiosmtpdPeer;
  let s: SendingStack;
  let records: TxtRecord[] = [];

  beforeAll(async () => {
    dns = await new DnsServer().start();
    mx = await AiosmtpdPeer.start({ eightBitMime: false });
    s = await startSendingStack('eightbit', { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${mx.port}`, DNS_SERVERS: dns.address, DOMAIN_MX_HOST: 'mx.mailroom.test' });
    const { body: added } = await s.api.post('/domains', { name: 'acme.example' });
    dns.setZone(publish(added.records));
    expect((await s.api.post(`/domains/${added.id}/verify`)).body.status).toBe('verified');
    records = added.records.filter((r: { record: string }) => r.record === 'dkim').map((r: TxtRecord) => ({ name: r.name, value: r.value }));
  });
  afterAll(async () => {
    await s?.close();
    await mx?.stop();
    await dns?.stop();
  });

  async function send(attachment: Buffer, to: string): Promise<{ id: string; final: { status: string; events: Array<{ type: string; data: Record<string, unknown> }> } }> {
    const { status, body } = await s.api.post('/emails', {
      from: FROM,
      to,
      subject: 'Fwd: Grüße',
      text: 'Siehe Anhang.',
      attachments: [{ filename: 'forwarded.eml', content: attachment.toString('base64') }],
    });
    expect(status).toBe(200);
    return { id: body.id, final: await waitForEmail(s.api, body.id, isFinished) };
  }

  test('when an email forwards a UTF-8 message, then the smarthost gets a 7-bit copy, signed after the downgrade, the forwarded parts decoding exactly', async () => {
    const { final } = await send(FORWARDED, 'alice@example.com');

    expect(final.status).toBe('delivered');
    const received = mx.messages.find((m) => m.to.includes('alice@example.com'))?.content ?? Buffer.alloc(0);
    expect(isAscii(received)).toBe(true);
    expect(mx.mails.flatMap((m) => m.options).filter((o) => o.startsWith('BODY='))).toEqual([]);
    expect((await dkimpyVerify(received, records)).map((v) => ({ pass: v.pass, domain: v.domain, reason: v.reason }))).toEqual([
      { pass: true, domain: 'acme.example', reason: null },
    ]);
    // The forwarded message's parts, decoded, are its own: its text by its bytes, its HTML (the first in the message) as text.
    const [view, forwarded] = await Promise.all([readEmail(received), readEmail(FORWARDED)]);
    expect(view.text).toBe('Siehe Anhang.');
    expect(view.html).toBe(forwarded.html);
    expect(view.attachments.map((a) => [a.contentType, a.sha256])).toEqual([
      ['text/plain', sha256(Buffer.from(GERMAN))],
      ...forwarded.attachments.map((a) => [a.contentType, a.sha256]),
    ]);
  });

  test('when an email forwards a message with a raw UTF-8 header field, then it bounces 5.6.3 (hard, no suppression) and nothing reaches the smarthost', async () => {
    const before = mx.mails.length;
    const { final } = await send(crlf(['From: Jörg <joerg@example.org>', 'Subject: Grüße', 'MIME-Version: 1.0', '', 'Grüße', '']), 'bob@example.com');

    expect(final.status).toBe('bounced');
    expect(final.events.find((e) => e.type === 'email.bounced')?.data).toMatchObject({
      bounce: { type: 'hard', code: '5.6.3' },
      smtp: { code: null, enhanced_code: '5.6.3', message: expect.stringMatching(/no 8BITMIME/) },
    });
    expect(mx.mails.length).toBe(before);
  });
});
