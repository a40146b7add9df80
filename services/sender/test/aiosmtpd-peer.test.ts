import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate } from '../../../test/support/certificate';
import type { Deliverer, DeliveryOutcome } from '../src/delivery';
import { MessageSkeleton } from '../src/message/build-skeleton';
import type { OutgoingEmail } from '../src/send-store';
import { type AiosmtpdConfig, AiosmtpdPeer } from './support/aiosmtpd-peer';
import { peerDeliverers } from './support/peer-deliverers';

/**
 * The sender's SMTP client against aiosmtpd (Python, python3-aiosmtpd), an SMTP server written
 * independently of nodemailer: the bytes it receives, the extensions we use only when offered
 * (8BITMIME, SMTPUTF8, SIZE; RFC 6152, 6531, 1870), how its replies are classified, STARTTLS.
 */



const HEADERS = 'From: a@mailroom.test\r\nTo: x@example.test\r\nSubject: aiosmtpd\r\nMessage-ID: <p@mailroom.test>\r\n\r\n';
const RAW = Buffer.from(`${HEADERS}Hello.\r\n`);

function plainEmail(): OutgoingEmail {
  return {
    id: 'em_1', projectId: 'proj_1', from: 'hello@acme.test', fromAddress: 'hello@acme.test', to: ['x@example.test'], cc: [], replyTo: [],
    subject: 'Forwarded', html: null, text: 'See attached.', headers: {}, tags: [], messageId: 'em_1@acme.test',
    trackOpens: false, trackClicks: false, hasAttachments: true, due: [], suppressed: [],
  };
}

describe('the sender against aiosmtpd', () => {
  let dir: string;
  let cert: { cert: string; key: string };
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sender-aiosmtpd-'));
    const { certFile, keyFile } = selfSignedCertificate(dir, 'mx.example.test');
    cert = { cert: certFile, key: keyFile };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function peer(config: AiosmtpdConfig = {}): Promise<AiosmtpdPeer> {
    const started = await AiosmtpdPeer.start(config);
    cleanups.push(() => started.stop());
    return started;
  }

  const { deliverer, direct } = peerDeliverers(cleanups, 10_000);

  const relay = (port: number) => deliverer({ mxPort: 1, outboundSmtpUrl: `smtp://127.0.0.1:${port}` });

  /** Delivers `raw` through `d`, then stops both, so that everything the peer printed has been read. */
  async function deliverAndStop(d: Deliverer, mx: AiosmtpdPeer, raw: Buffer | Buffer[] = RAW, recipient = 'x@example.test'): Promise<DeliveryOutcome> {
    const outcome = await d.deliver({ envelopeFrom: 'bounces@mailroom.test', recipient, raw });
    await d.close();
    await mx.stop();
    return outcome;
  }

  describe('the bytes received', () => {
    test('when lines start with a dot, one is only a dot, and lines are long, then aiosmtpd receives exactly the message (dot-stuffing undone)', async () => {
      const body = ['.leading dot', '.', '..two dots', '', ` ${'x'.repeat(997)}`, 'a line with trailing space ', '.\t', 'last'].join('\r\n');
      const raw = Buffer.from(`${HEADERS}${body}\r\n`);
      const mx = await peer();

      const outcome = await deliverAndStop(relay(mx.port), mx, raw);

      expect(outcome).toMatchObject({ kind: 'delivered', smtp: { code: 250 } });
      expect(mx.messages).toHaveLength(1);
      expect(mx.messages[0]?.content.equals(raw)).toBe(true);
    });

    test('when the message is given as parts, then aiosmtpd receives their concatenation exactly', async () => {
      const parts = [Buffer.from(HEADERS), Buffer.from('.first\r\n.'), Buffer.from('\r\nsecond\r\n')];
      const mx = await peer();

      const outcome = await deliverAndStop(relay(mx.port), mx, parts);

      expect(outcome.kind).toBe('delivered');
      expect(mx.messages[0]?.content.equals(Buffer.concat(parts))).toBe(true);
    });

    test('when the last line has no CRLF, then it arrives with one added (the end of data needs it, RFC 5321 §4.1.1.4) and nothing else changes', async () => {
      const raw = Buffer.from(`${HEADERS}no line end`);
      const mx = await peer();

      const outcome = await deliverAndStop(relay(mx.port), mx, raw);

      expect(outcome.kind).toBe('delivered');
      expect(mx.messages[0]?.content.toString('latin1')).toBe(`${raw.toString('latin1')}\r\n`);
    });

    test('when a message Mailroom builds (UTF-8 subject, text, HTML, attachment) goes to a peer without 8BITMIME, then it is all 7-bit, arrives exactly, and MAIL has no BODY=8BITMIME', async () => {
      const email: OutgoingEmail = {
        id: 'em_1', projectId: 'proj_1', from: 'Jürgen <hello@acme.test>', fromAddress: 'hello@acme.test', to: ['x@example.test'], cc: [], replyTo: [],
        subject: 'Grüße — ünïcödé 🎉', html: `<p>Grüße, ${'é'.repeat(200)}</p>\n<p>.dot</p>`, text: `Grüße\n.\n.dot\n${'ü'.repeat(500)}`,
        headers: { 'X-Note': 'naïve' }, tags: [], messageId: 'em_1@acme.test', trackOpens: false, trackClicks: false, hasAttachments: true, due: [], suppressed: [],
      };
      const skeleton = await MessageSkeleton.build(email, [{ filename: 'résumé.txt', contentType: 'text/plain', content: Buffer.from('Zürich\n'), contentId: null }]);
      const raw = await skeleton.forRecipient({ id: 'rcpt_1', address: 'x@example.test' });
      const bytes = Buffer.isBuffer(raw) ? raw : Buffer.concat(raw);
      const mx = await peer({ eightBitMime: false });

      const outcome = await deliverAndStop(relay(mx.port), mx, bytes);

      expect(outcome.kind).toBe('delivered');
      expect([...bytes].every((byte) => byte < 0x80)).toBe(true);
      expect(mx.messages[0]?.content.equals(bytes)).toBe(true);
      expect(mx.messages[0]?.mailOptions).not.toContain('BODY=8BITMIME');
    });
  });

  describe('extensions used only when offered', () => {
    test('when the peer offers neither 8BITMIME nor SMTPUTF8, then MAIL carries neither BODY=8BITMIME nor SMTPUTF8', async () => {
      const mx = await peer({ eightBitMime: false, smtputf8: false });

      await deliverAndStop(await direct(mx.port), mx);

      expect(mx.mails).toHaveLength(1);
      expect(mx.mails[0]?.options.filter((o) => /^(BODY=|SMTPUTF8)/.test(o))).toEqual([]);
    });

    test('when a message Mailroom builds has 8-bit bytes (a forwarded message/rfc822 attachment, 8bit) and the peer offers 8BITMIME, then MAIL says BODY=8BITMIME and the bytes arrive exactly (RFC 6152 §3)', async () => {
      const skeleton = await MessageSkeleton.build(plainEmail(), [{ filename: 'fwd.eml', contentType: 'message/rfc822', contentId: null, content: Buffer.from('Subject: x\r\n\r\nGrüße\r\n') }]);
      const raw = await skeleton.forRecipient({ id: 'rcpt_1', address: 'x@example.test' });
      const bytes = Buffer.isBuffer(raw) ? raw : Buffer.concat(raw);
      const mx = await peer();

      const outcome = await deliverAndStop(await direct(mx.port), mx, bytes);

      expect(outcome.kind).toBe('delivered');
      expect(bytes.toString('latin1')).toContain('Content-Transfer-Encoding: 8bit');
      expect(mx.mails[0]?.options).toContain('BODY=8BITMIME');
      expect(mx.messages[0]?.content.equals(bytes)).toBe(true);
    });

    test('when the message is 7-bit and the peer offers 8BITMIME, then MAIL declares no BODY', async () => {
      const mx = await peer();

      await deliverAndStop(await direct(mx.port), mx);

      expect(mx.mails[0]?.options.filter((o) => o.startsWith('BODY='))).toEqual([]);
    });

    test('when the peer offers SIZE, then MAIL declares the message size in octets (RFC 1870 §4)', async () => {
      const mx = await peer({ size: 1_000_000 });

      const outcome = await deliverAndStop(await direct(mx.port), mx);

      expect(outcome.kind).toBe('delivered');
      expect(mx.mails[0]?.options).toContain(`SIZE=${RAW.length}`);
    });

    test('when the message is larger than the SIZE the peer offers, then nothing is sent and it bounces 5.3.4, not deferred (RFC 1870 §6.1)', async () => {
      const mx = await peer({ size: 200 });
      const raw = Buffer.from(`${HEADERS}${'y'.repeat(500)}\r\n`);

      const outcome = await deliverAndStop(await direct(mx.port), mx, raw);

      expect(outcome).toMatchObject({ kind: 'bounced', bounceType: 'soft', suppress: false, smtp: { enhancedCode: '5.3.4' } });
      expect(mx.mails).toEqual([]);
      expect(mx.messages).toEqual([]);
    });

    test('when the peer enforces a size it does not advertise, then its 552 after the data is a bounce, never a suppression', async () => {
      const mx = await peer({ size: 200, advertiseSize: false });
      const raw = Buffer.from(`${HEADERS}${'y'.repeat(500)}\r\n`);

      const outcome = await deliverAndStop(await direct(mx.port), mx, raw);

      expect(outcome).toMatchObject({ kind: 'bounced', suppress: false, smtp: { code: 552 } });
    });

    test('when the recipient has a UTF-8 local part and the peer offers SMTPUTF8, then MAIL says SMTPUTF8 and it is delivered', async () => {
      const mx = await peer({ smtputf8: true });

      const outcome = await deliverAndStop(await direct(mx.port), mx, RAW, 'jürgen@example.test');

      expect(outcome.kind).toBe('delivered');
      expect(mx.messages[0]?.mailOptions).toContain('SMTPUTF8');
      expect(mx.messages[0]?.to).toEqual(['jürgen@example.test']);
    });

    // nodemailer still sends the UTF-8 RCPT (RFC 6531 §3.2 says not to); aiosmtpd refuses it with
    // `500 Error: strict ASCII mode`. The gateway admits only ASCII local parts, so no email has one.
    test('when the recipient has a UTF-8 local part and the peer does not offer SMTPUTF8, then it bounces without suppression, never delivered', async () => {
      const mx = await peer({ smtputf8: false });

      const outcome = await deliverAndStop(await direct(mx.port), mx, RAW, 'jürgen@example.test');

      expect(outcome).toMatchObject({ kind: 'bounced', suppress: false });
      expect(mx.messages).toEqual([]);
    });
  });

  describe('replies', () => {
    test.each<[string, AiosmtpdConfig, Record<string, unknown>]>([
      ['452 at RCPT', { replies: { RCPT: '452 4.2.2 Mailbox full, try later' } }, { kind: 'deferred', smtp: { code: 452, enhancedCode: '4.2.2', message: 'Mailbox full, try later' } }],
      ['550 5.1.1 at RCPT', { replies: { RCPT: '550 5.1.1 No such user' } }, { kind: 'bounced', bounceType: 'hard', suppress: true, smtp: { code: 550, enhancedCode: '5.1.1', message: 'No such user' } }],
      [
        'a multi-line 550 with its enhanced code on every line',
        { replies: { RCPT: '550-5.1.1 The email account that you tried to reach does not exist.\r\n550-5.1.1 Please double-check the address\r\n550 5.1.1 and try again.' } },
        {
          kind: 'bounced', bounceType: 'hard', suppress: true,
          smtp: { code: 550, enhancedCode: '5.1.1', message: 'The email account that you tried to reach does not exist. Please double-check the address and try again.' },
        },
      ],
      // Without an enhanced code the text decides, as for a bounce by mail: RFC 5321's own 550 text reads as no such mailbox.
      ['550 without an enhanced code', { replies: { RCPT: '550 Mailbox unavailable' } }, { kind: 'bounced', bounceType: 'hard', suppress: true, smtp: { code: 550, enhancedCode: null } }],
      ['550 without an enhanced code or a mailbox text', { replies: { RCPT: '550 Requested action not taken' } }, { kind: 'bounced', bounceType: 'hard', suppress: false, smtp: { code: 550, enhancedCode: null } }],
      ['550 5.7.1 at DATA', { replies: { DATA: '550 5.7.1 Message refused as spam' } }, { kind: 'bounced', bounceType: 'policy', suppress: false }],
      ['550 at MAIL FROM with 5.1.1 (about our sender)', { replies: { MAIL: '550 5.1.1 Sender unknown' } }, { kind: 'bounced', suppress: false }],
      // The basic code decides (RFC 5321 §4.2.1); an enhanced code of another class never suppresses.
      ['550 with a contradicting 4.2.2', { replies: { RCPT: '550 4.2.2 Mailbox full' } }, { kind: 'bounced', bounceType: 'soft', suppress: false, smtp: { code: 550, enhancedCode: '4.2.2' } }],
      ['550 with a contradicting 4.1.1', { replies: { RCPT: '550 4.1.1 No such user' } }, { kind: 'bounced', suppress: false }],
      ['450 with a contradicting 5.1.1', { replies: { RCPT: '450 5.1.1 No such user' } }, { kind: 'deferred', smtp: { code: 450, enhancedCode: '5.1.1' } }],
      ['421 at MAIL, then a hang-up', { replies: { MAIL: '421 4.3.2 Service shutting down' }, closeAfter: ['MAIL'] }, { kind: 'deferred', smtp: { code: 421 } }],
      ['421 at RCPT, then a hang-up', { replies: { RCPT: '421 4.7.0 Too many errors' }, closeAfter: ['RCPT'] }, { kind: 'deferred', smtp: { code: 421 } }],
      ['421 after the data, then a hang-up', { replies: { DATA: '421 4.4.2 Timeout, closing' }, closeAfter: ['DATA'] }, { kind: 'deferred', smtp: { code: 421 } }],
    ])('when the peer answers %s, then the outcome is as README says', async (_what, config, expected) => {
      const mx = await peer(config);

      const outcome = await deliverAndStop(await direct(mx.port), mx);

      expect(outcome).toMatchObject(expected);
    });
  });

  test('when aiosmtpd offers STARTTLS with a self-signed certificate, then the message is delivered inside TLS (MX certificates are not verified)', async () => {
    const mx = await peer({ tls: cert });

    const outcome = await deliverAndStop(await direct(mx.port), mx);

    expect(outcome).toMatchObject({ kind: 'delivered', host: 'mx.example.test' });
    expect(mx.messages).toHaveLength(1);
    expect(mx.messages[0]?.tls).toBe(true);
    expect(mx.messages[0]?.content.equals(RAW)).toBe(true);
  });
});
