import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { DnsServer } from '../../../../test/support/dns-server';
import { authenticateMessage } from './authenticate';
import { withWhitespaceBeforeB } from './b-tag-whitespace';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const HEADER = 'From: ada@signer.test\r\nSubject: spaced\r\n';
const BODY = 'Hello.\r\n';

/** A simple/simple signature written `b =` (RFC 6376 §3.2), made by hand: the signed fields as written, then the field with b= emptied, no final CRLF (§3.7). */
function spacedSignature(header = HEADER): string {
  const bh = createHash('sha256').update(BODY).digest('base64');
  const unsigned = `DKIM-Signature: v=1; a=rsa-sha256; c=simple/simple; d=signer.test; s=sel; h=from:subject; bh=${bh};\r\n b =`;
  const b = sign('sha256', Buffer.from(header + unsigned), privateKey).toString('base64');
  return `${unsigned} ${b}\r\n`;
}

describe('withWhitespaceBeforeB', () => {
  let dns: DnsServer;
  beforeAll(async () => {
    const key = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    dns = await new DnsServer({ zone: { 'sel._domainkey.signer.test': { TXT: [`v=DKIM1; k=rsa; p=${key}`.match(/.{1,255}/g) ?? []] } } }).start();
  });
  afterAll(() => dns.stop());

  const judge = (raw: string) => authenticateMessage(Buffer.from(raw), { remoteAddress: '192.0.2.10', helo: 'mx.signer.test', mailFrom: 'bounce@signer.test', mta: 'mx.acme.test', dnsServers: [dns.address] });

  test('when a good signature has whitespace between b and =, then it passes (mailauth alone says fail)', async () => {
    const verdicts = await judge(`${spacedSignature()}${HEADER}\r\n${BODY}`);
    expect(verdicts.dkim.map((s) => s.result)).toEqual(['pass']);
  });

  test('when the message was altered after such a signature, then it still fails', async () => {
    const verdicts = await judge(`${spacedSignature()}${HEADER.replace('spaced', 'altered')}\r\n${BODY}`);
    expect(verdicts.dkim.map((s) => s.result)).toEqual(['fail']);
  });

  test('when the field writes b= without whitespace, then mailauth\'s result is returned unchanged', () => {
    const signature = { status: { result: 'fail', comment: 'bad signature' }, algo: 'rsa-sha256', signature: 'AAAA', publicKey: 'not used', format: 'simple/simple' };
    expect(withWhitespaceBeforeB(signature, Buffer.from('DKIM-Signature: v=1; bh=AAAA; b=AAAA\r\n'))).toBe(signature);
  });
});
