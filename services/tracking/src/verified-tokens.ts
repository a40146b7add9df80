import type { TrackingTarget, TrackingTokens } from '@mailroom/core';
import { Lru } from './lru';

// Tokens kept once verified: the same pixel and links are fetched again and again (every view of
// the message, proxies and scanners, then the person).
const DEFAULT_SIZE = 10_000;
// Longer tokens (links of over ~700 characters) are verified every time: with the cap, the cache holds at most ~20 MB.
const MAX_CACHED_TOKEN_CHARS = 1_024;

/**
 * TrackingTokens.verify with the tokens recently found valid remembered: a repeated token costs
 * a Map lookup instead of base64 decoding, an HMAC-SHA256 and two ULID encodings (~4 µs). Only
 * tokens the key signed are kept, so a forged one is checked in full on every request and
 * cannot push the real ones out.
 */
export class VerifiedTokens {
  private readonly verified: Lru<string, TrackingTarget>;

  constructor(
    private readonly tokens: TrackingTokens,
    size = DEFAULT_SIZE,
  ) {
    this.verified = new Lru(size);
  }

  verify(token: string): TrackingTarget | null {
    const known = this.verified.get(token);
    if (known !== undefined) return known;
    const target = this.tokens.verify(token);
    if (target !== null && token.length <= MAX_CACHED_TOKEN_CHARS) this.verified.set(token, target);
    return target;
  }
}
