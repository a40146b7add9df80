import { createLogger } from '@mailroom/core';
import type { EngagementHit } from '@mailroom/db';
import { EngagementBuffer } from './engagement-buffer';

const logger = createLogger({ service: 'test', level: 'silent', pretty: false });

function hits(count: number, from = 0): EngagementHit[] {
  return Array.from({ length: count }, (_, i) => ({
    kind: 'open',
    emailId: 'email_1',
    recipientId: `recipient_${from + i}`,
    ipAddress: null,
    userAgent: null,
    isBot: false,
    at: new Date(0),
  }));
}

describe('EngagementBuffer', () => {
  test('when writeAt hits wait, then a write starts; hits arriving meanwhile are written next in one batch up to maxBatch, in order', async () => {
    const batches: EngagementHit[][] = [];
    let release: () => void = () => undefined;
    const buffer = new EngagementBuffer({
      logger,
      flushIntervalMs: 3_600_000,
      writeAt: 5,
      maxBatch: 12,
      write: (batch) => {
        batches.push(batch);
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    for (const hit of hits(4)) buffer.add(hit);
    expect(batches).toHaveLength(0);
    for (const hit of hits(1, 4)) buffer.add(hit);
    expect(batches.map((b) => b.length)).toEqual([5]);
    // While the first write is in flight, 20 more arrive: the writer is behind, so its batches grow.
    for (const hit of hits(20, 5)) buffer.add(hit);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches.map((b) => b.length)).toEqual([5, 12]);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches.map((b) => b.length)).toEqual([5, 12, 8]);
    release();
    await buffer.flush();
    expect(batches.flat().map((h) => h.recipientId)).toEqual(hits(25).map((h) => h.recipientId));
    expect(buffer.size).toBe(0);
  });

  test('when a write fails, then its hits stay first for the next write', async () => {
    let fail = true;
    const written: string[] = [];
    const buffer = new EngagementBuffer({
      logger,
      flushIntervalMs: 3_600_000,
      writeAt: 1_000,
      write: async (batch) => {
        if (fail) throw new Error('PostgreSQL is down');
        written.push(...batch.map((h) => h.recipientId));
      },
    });
    for (const hit of hits(3)) buffer.add(hit);
    await buffer.flush();
    expect(buffer.size).toBe(3);
    for (const hit of hits(2, 3)) buffer.add(hit);
    fail = false;
    await buffer.flush();
    expect(written).toEqual(hits(5).map((h) => h.recipientId));
  });
});
