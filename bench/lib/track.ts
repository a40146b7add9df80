import { deriveKey, newId, TrackingTokens } from '@mailroom/core';
import { type LoadResult, runLoad } from './load';
import type { RunningServer } from './services';

export interface TrackSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

// Sent by every request, so the pixel and redirect are judged as a person's would be.
const USER_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
export const TRACKED_LINK = 'https://acme.example/pricing?plan=pro&ref=mail';

/** The tokens of one seeded recipient, signed with the run's SECRET_KEY as the sender signs them. */
export function benchTokens(secretKey: string) {
  const emailId = newId('email');
  const recipientId = newId('recipient');
  const tokens = new TrackingTokens(deriveKey(secretKey, 'tracking'));
  return {
    emailId,
    recipientId,
    open: tokens.sign({ kind: 'open', emailId, recipientId }),
    click: tokens.sign({ kind: 'click', emailId, recipientId, url: TRACKED_LINK }),
  };
}

/** Loads `/o/<token>` (200) or `/c/<token>` (302) of one server with GETs. */
export function measureTrack(server: RunningServer, path: string, expect: '2xx' | '3xx', settings: TrackSettings): Promise<LoadResult> {
  return runLoad({
    url: `${server.url}${path}`,
    method: 'GET',
    headers: { 'user-agent': USER_AGENT },
    connections: settings.connections,
    durationSeconds: settings.durationSeconds,
    warmupSeconds: settings.warmupSeconds,
    expect,
  });
}
