import { deriveKey, newId, type TrackingTarget, TrackingTokens } from '@mailroom/core';
import { VerifiedTokens } from './verified-tokens';

/** TrackingTokens that count the tokens they check in full. */
class CountingTokens extends TrackingTokens {
  checked = 0;
  override verify(token: string): TrackingTarget | null {
    this.checked += 1;
    return super.verify(token);
  }
}

const ours = new TrackingTokens(deriveKey('master secret of sufficient length!', 'tracking'));
const theirs = new TrackingTokens(deriveKey('another deployment secret, also long', 'tracking'));
const target = (url: string): TrackingTarget => ({ kind: 'click', emailId: newId('email'), recipientId: newId('recipient'), url });

describe('verified tokens', () => {
  test('when a valid token comes again, then it verifies to the same target without a second full check', () => {
    const counting = new CountingTokens(deriveKey('master secret of sufficient length!', 'tracking'));
    const verified = new VerifiedTokens(counting);
    const clicked = target('https://acme.example/pricing?plan=pro');
    const token = ours.sign(clicked);
    expect(verified.verify(token)).toEqual(clicked);
    expect(verified.verify(token)).toEqual(clicked);
    expect(counting.checked).toBe(1);
  });

  test('when a token is forged, tampered or another deployment’s, then it is refused every time and never kept', () => {
    const counting = new CountingTokens(deriveKey('master secret of sufficient length!', 'tracking'));
    const verified = new VerifiedTokens(counting);
    const token = ours.sign(target('https://acme.example/a'));
    const tampered = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;
    const foreign = theirs.sign(target('https://evil.example/'));
    for (const bad of [tampered, foreign, tampered, foreign]) expect(verified.verify(bad)).toBeNull();
    expect(counting.checked).toBe(4);
    expect(verified.verify(token)).not.toBeNull();
  });

  test('when a token is very long, then it is checked in full every time (the cache stays small)', () => {
    const counting = new CountingTokens(deriveKey('master secret of sufficient length!', 'tracking'));
    const verified = new VerifiedTokens(counting);
    const long = target(`https://acme.example/?q=${'x'.repeat(2_000)}`);
    const token = ours.sign(long);
    expect(verified.verify(token)).toEqual(long);
    expect(verified.verify(token)).toEqual(long);
    expect(counting.checked).toBe(2);
  });
});
