import { deriveKey } from './crypto';
import { newId } from './ids';
import { Verp } from './verp';

const SECRET = 'master secret of sufficient length!';
const verp = new Verp(deriveKey(SECRET, 'verp'), 'bounces.example.test');

describe('VERP return paths', () => {
  test('when a return path is built and parsed, then it names the same recipient', () => {
    const recipientId = newId('recipient');
    const address = verp.returnPath(recipientId);
    expect(address).toMatch(/^bounces\+rcpt_[0-9A-Z]{26}-[0-9a-f]{12}@bounces\.example\.test$/);
    expect(verp.parse(address)).toBe(recipientId);
  });

  test('when the key is the verp sub-key of the secret, then the MAC is its truncated HMAC-SHA256', () => {
    // Pinned so that return paths of mail already sent keep verifying after this code moves.
    const fixed = new Verp(deriveKey('0123456789abcdef0123456789abcdef', 'verp'), 'b.test');
    expect(fixed.returnPath('rcpt_01J0000000000000000000000A')).toBe('bounces+rcpt_01J0000000000000000000000A-0f09be99ab3a@b.test');
  });

  test('when an MTA folds the case of the address, then it still parses to the original id', () => {
    const recipientId = newId('recipient');
    const address = verp.returnPath(recipientId);
    expect(verp.parse(address.toLowerCase())).toBe(recipientId);
    expect(verp.parse(address.toUpperCase())).toBe(recipientId);
  });

  test('when the address has surrounding whitespace or angle brackets, then it still parses', () => {
    const recipientId = newId('recipient');
    const address = verp.returnPath(recipientId);
    expect(verp.parse(`  ${address}\t\r\n`)).toBe(recipientId);
    expect(verp.parse(`<${address}>`)).toBe(recipientId);
    expect(verp.parse(` < ${address} > `)).toBe(recipientId);
  });

  test('when whitespace is inside the address, then it is refused', () => {
    const address = verp.returnPath(newId('recipient'));
    expect(verp.parse(address.replace('@', ' @'))).toBeNull();
    expect(verp.parse(address.replace('-', ' -'))).toBeNull();
  });

  test('when the domain is not BOUNCE_DOMAIN nor one given, then it is refused', () => {
    const recipientId = newId('recipient');
    const address = verp.returnPath(recipientId);
    expect(verp.parse(address.replace('@bounces.example.test', '@example.test'))).toBeNull();
    expect(verp.parse(address.replace('@bounces.example.test', '@bounces.example.test.evil'))).toBeNull();
    expect(verp.parse(`${address}@bounces.example.test`)).toBeNull();
    const atReturnPath = verp.returnPath(recipientId, 'rp.customer.test');
    expect(atReturnPath.endsWith('@rp.customer.test')).toBe(true);
    expect(verp.parse(atReturnPath)).toBeNull();
    expect(verp.parse(atReturnPath, ['RP.Customer.test'])).toBe(recipientId);
  });

  test('when parseAny is given a return path at a return-path subdomain, then it parses there as at BOUNCE_DOMAIN, and nowhere else', () => {
    const labelled = new Verp(deriveKey(SECRET, 'verp'), 'bounces.example.test', 'rp');
    const recipientId = newId('recipient');
    expect(labelled.parseAny(labelled.returnPath(recipientId))).toBe(recipientId);
    expect(labelled.parseAny(labelled.returnPath(recipientId, 'RP.Customer.test'))).toBe(recipientId);
    expect(labelled.parseAny(labelled.returnPath(recipientId, 'customer.test'))).toBeNull();
    expect(labelled.parseAny(labelled.returnPath(recipientId, 'rpx.customer.test'))).toBeNull();
    expect(labelled.parseAny(labelled.returnPath(recipientId).replace(/-[0-9a-f]{12}@/, '-000000000000@'))).toBeNull();
    // Without a label, only BOUNCE_DOMAIN.
    expect(verp.parseAny(verp.returnPath(recipientId, 'rp.customer.test'))).toBeNull();
    expect(verp.parseAny(verp.returnPath(recipientId))).toBe(recipientId);
  });

  test('when the return path at a long sending domain would pass 254 octets, then it is at BOUNCE_DOMAIN instead', () => {
    const recipientId = newId('recipient');
    const fits = `bounces.${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(57)}.example`;
    expect(verp.returnPath(recipientId, fits).length).toBe(254);
    expect(verp.returnPath(recipientId, fits).endsWith(`@${fits}`)).toBe(true);
    const long = `x${fits}`;
    expect(verp.returnPath(recipientId, long)).toBe(verp.returnPath(recipientId));
    expect(verp.parse(verp.returnPath(recipientId, long))).toBe(recipientId);
  });

  test('when the MAC is tampered with, then it is refused', () => {
    const address = verp.returnPath(newId('recipient'));
    const mac = /-([0-9a-f]{12})@/.exec(address)![1]!;
    const flipped = `${mac.slice(0, -1)}${mac.endsWith('0') ? '1' : '0'}`;
    expect(verp.parse(address.replace(mac, flipped))).toBeNull();
    expect(verp.parse(address.replace(mac, mac.slice(0, 11)))).toBeNull();
    expect(verp.parse(address.replace(mac, `${mac}0`))).toBeNull();
  });

  test('when the recipient id is changed but the MAC kept, then it is refused', () => {
    const address = verp.returnPath(newId('recipient'));
    const other = newId('recipient');
    expect(verp.parse(address.replace(/rcpt_[0-9A-Z]{26}/, other))).toBeNull();
  });

  test('when the MAC was made with another key, then it is refused', () => {
    const recipientId = newId('recipient');
    const fromOtherSecret = new Verp(deriveKey('another master secret, also long!!', 'verp'), 'bounces.example.test');
    const fromOtherPurpose = new Verp(deriveKey(SECRET, 'tracking'), 'bounces.example.test');
    expect(verp.parse(fromOtherSecret.returnPath(recipientId))).toBeNull();
    expect(verp.parse(fromOtherPurpose.returnPath(recipientId))).toBeNull();
  });

  test('when the id has the wrong shape, then it is refused', () => {
    const key = deriveKey(SECRET, 'verp');
    // A MAC that verifies for a string which is not a recipient id must still be refused.
    const signed = (id: string) => new Verp(key, 'bounces.example.test').returnPath(id);
    expect(verp.parse(signed('em_01J0000000000000000000000A'))).toBeNull();
    expect(verp.parse(signed('rcpt_01J000000000000000000000'))).toBeNull();
    expect(verp.parse(signed('rcpt_01J0000000000000000000000AB'))).toBeNull();
    expect(verp.parse(signed('rcpt_01J000000000000000000000IL'))).toBeNull();
    expect(verp.parse('bounces+rcpt_-abcdefabcdef@bounces.example.test')).toBeNull();
    expect(verp.parse('postmaster@bounces.example.test')).toBeNull();
    expect(verp.parse('')).toBeNull();
  });
});
