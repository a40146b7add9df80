import { deriveKey } from './crypto';
import { newId } from './ids';
import { type TrackingTarget, TrackingTokens } from './tracking-token';

const SECRET = 'master secret of sufficient length!';
const tokens = new TrackingTokens(deriveKey(SECRET, 'tracking'));
const open = (): TrackingTarget => ({ kind: 'open', emailId: newId('email'), recipientId: newId('recipient') });
const click = (url = 'https://example.com/path?q=1&r=é#frag'): TrackingTarget => ({
  kind: 'click',
  emailId: newId('email'),
  recipientId: newId('recipient'),
  url,
});

function flipByte(token: string, index: number): string {
  const bytes = Buffer.from(token, 'base64url');
  bytes[index]! ^= 0x01;
  return bytes.toString('base64url');
}

describe('tracking tokens', () => {
  test('when an open token is signed, then it is compact, URL-safe and verifies to the same target', () => {
    const target = open();
    const token = tokens.sign(target);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(token).toHaveLength(67) // 50 bytes;
    expect(tokens.verify(token)).toEqual(target);
  });

  test('when a click token is signed, then it verifies to the same email, recipient and original URL', () => {
    const target = click();
    const token = tokens.sign(target);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(tokens.verify(token)).toEqual(target);
  });

  test('when ids have the largest and smallest ULIDs, then they survive the round trip', () => {
    for (const ulid of ['00000000000000000000000000', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ']) {
      const target: TrackingTarget = { kind: 'open', emailId: `em_${ulid}`, recipientId: `rcpt_${ulid}` };
      expect(tokens.verify(tokens.sign(target))).toEqual(target);
    }
  });

  test('when any byte of a token is altered, then it verifies to null', () => {
    const token = tokens.sign(click('https://example.com/a'));
    const length = Buffer.from(token, 'base64url').length;
    for (let i = 0; i < length; i++) expect(tokens.verify(flipByte(token, i))).toBeNull();
  });

  test('when a token is truncated or extended, then it verifies to null', () => {
    const token = tokens.sign(click());
    for (const cut of [1, 2, 4, 16, 22, token.length - 1]) expect(tokens.verify(token.slice(0, token.length - cut))).toBeNull();
    expect(tokens.verify(`${token}A`)).toBeNull();
    expect(tokens.verify(`${token}AAAA`)).toBeNull();
    expect(tokens.verify('')).toBeNull();
  });

  test('when a token is not canonical base64url, then it verifies to null', () => {
    const token = tokens.sign(open());
    expect(tokens.verify(`${token}==`)).toBeNull();
    expect(tokens.verify(`${token.slice(0, 10)}.${token.slice(10)}`)).toBeNull();
    expect(tokens.verify(`+${token.slice(1)}`)).toBeNull();
    expect(tokens.verify(`${token.slice(0, -1)}/`)).toBeNull();
    expect(tokens.verify(`${token}\n`)).toBeNull();
    // 50 bytes take 67 characters; the last one carries 2 unused bits a lenient decoder ignores.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(token.at(-1)!);
    const sameBytes = `${token.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(sameBytes, 'base64url').equals(Buffer.from(token, 'base64url'))).toBe(true);
    expect(tokens.verify(sameBytes)).toBeNull();
  });

  test('when the last character of a token of any length is swapped for any other, then it verifies to null', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const tails = new Set<number>();
    for (let extra = 0; extra < 3; extra++) {
      const token = tokens.sign(click(`https://acme.example/${'x'.repeat(extra)}`));
      tails.add(token.length % 4);
      expect(tokens.verify(token)).not.toBeNull();
      for (const char of alphabet) if (char !== token.at(-1)) expect(tokens.verify(`${token.slice(0, -1)}${char}`)).toBeNull();
    }
    expect([...tails].sort()).toEqual([0, 2, 3]);
  });

  test('when a token was signed with another key, then it verifies to null', () => {
    const target = click();
    expect(tokens.verify(new TrackingTokens(deriveKey('another master secret, also long!!', 'tracking')).sign(target))).toBeNull();
    expect(tokens.verify(new TrackingTokens(deriveKey(SECRET, 'verp')).sign(target))).toBeNull();
  });

  test('when an open token is forged into a click by appending a URL, then it verifies to null', () => {
    const token = tokens.sign(open());
    const bytes = Buffer.from(token, 'base64url');
    bytes[1] = 0x63; // 'c'
    const forged = Buffer.concat([bytes.subarray(0, 34), Buffer.from('https://evil.test/'), bytes.subarray(34)]);
    expect(tokens.verify(forged.toString('base64url'))).toBeNull();
  });

  test('when a link is not http(s) or an id is malformed, then signing refuses it', () => {
    expect(() => tokens.sign(click('javascript:alert(1)'))).toThrow();
    expect(() => tokens.sign(click('not a url'))).toThrow();
    expect(() => tokens.sign({ kind: 'open', emailId: 'em_nope', recipientId: newId('recipient') })).toThrow();
    expect(() => tokens.sign({ kind: 'open', emailId: newId('email'), recipientId: newId('email') })).toThrow();
    expect(() => tokens.sign({ kind: 'open', emailId: 'em_8ZZZZZZZZZZZZZZZZZZZZZZZZZ', recipientId: newId('recipient') })).toThrow();
  });
});
