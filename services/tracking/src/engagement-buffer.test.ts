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

  test('when a write fails, then the retry carries the same event ids and says it is a retry; a write that succeeds ends that', async () => {
    const tries: { ids: (string | undefined)[]; retry: boolean }[] = [];
    let fail = true;
    const buffer = new EngagementBuffer({
      logger,
      flushIntervalMs: 3_600_000,
      writeAt: 1_000,
      write: async (batch, retry) => {
        tries.push({ ids: batch.map((h) => h.eventId), retry });
        if (fail) throw new Error('Connection terminated unexpectedly');
      },
    });
    for (const hit of hits(3)) buffer.add(hit);
    await buffer.flush();
    fail = false;
    await buffer.flush();
    for (const hit of hits(2, 3)) buffer.add(hit);
    await buffer.flush();
    expect(tries.map((t) => [t.ids.length, t.retry])).toEqual([[3, false], [3, true], [2, false]]);
    expect(tries[1]?.ids).toEqual(tries[0]?.ids);
    expect(new Set(tries.flatMap((t) => t.ids)).size).toBe(5);
    expect(tries.flatMap((t) => t.ids).every((id) => id?.startsWith('evt_'))).toBe(true);
  });

  test('when writes fail with more than writeAt hits waiting, then new hits do not start a write each: the next try waits for the timer', async () => {
    let writes = 0;
    const buffer = new EngagementBuffer({
      logger,
      flushIntervalMs: 3_600_000,
      writeAt: 5,
      write: async () => {
        writes += 1;
        throw new Error('PostgreSQL is down');
      },
    });
    for (const hit of hits(5)) buffer.add(hit);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toBe(1);
    for (const hit of hits(100, 5)) {
      buffer.add(hit);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(writes).toBe(1);
    expect(buffer.size).toBe(105);
    // The timer's tick tries again.
    await buffer.flush();
    expect(writes).toBe(2);
  });

  test('when more hits arrive than maxBuffered while writes fail, then the oldest are dropped and counted, a hundredth of the bound at a time, and the newest kept', async () => {
    const drops: number[] = [];
    let fail = true;
    const written: string[] = [];
    const buffer = new EngagementBuffer({
      logger,
      flushIntervalMs: 3_600_000,
      writeAt: 1_000_000,
      maxBatch: 1_000_000,
      maxBuffered: 10_000,
      onDropped: (count) => drops.push(count),
      write: async (batch) => {
        if (fail) throw new Error('PostgreSQL is down');
        written.push(...batch.map((h) => h.recipientId));
      },
    });
    for (const hit of hits(15_000)) buffer.add(hit);
    const kept = buffer.size;
    expect(kept).toBeLessThanOrEqual(10_000);
    expect(kept).toBeGreaterThanOrEqual(9_900);
    expect(drops.reduce((a, b) => a + b, 0)).toBe(15_000 - kept);
    // Each drop moves every hit kept: 5,000 hits beyond the bound cost 50 of them, not 5,000.
    expect(drops).toHaveLength(50);
    fail = false;
    await buffer.flush();
    expect(written).toEqual(hits(kept, 15_000 - kept).map((h) => h.recipientId));
  });

  test('when a write fails and the spill takes the batch, then the batch and every hit waiting then leave memory, each with its event id, and the next write is no retry', async () => {
    const spilled: EngagementHit[][] = [];
    const tries: boolean[] = [];
    let fail = true;
    let buffer: EngagementBuffer | null = null;
    buffer = new EngagementBuffer({
      logger,
      flushIntervalMs: 3_600_000,
      writeAt: 1_000,
      maxBatch: 4,
      write: async (_batch, retry) => {
        tries.push(retry);
        if (fail) throw new Error('PostgreSQL is down');
      },
      spill: async (batch) => {
        spilled.push(batch);
        // A hit arriving while the spill is written waits for the next try.
        if (spilled.length === 1) buffer?.add(hits(1, 99)[0] as EngagementHit);
      },
    });
    for (const hit of hits(10)) buffer.add(hit);
    await buffer.flush();
    expect(spilled.map((b) => b.length)).toEqual([4, 4, 2]);
    expect(spilled.flat().map((h) => h.recipientId)).toEqual(hits(10).map((h) => h.recipientId));
    expect(spilled.flat().every((h) => h.eventId?.startsWith('evt_'))).toBe(true);
    expect(buffer.size).toBe(1);
    fail = false;
    await buffer.flush();
    expect(tries).toEqual([false, false]);
    expect(buffer.size).toBe(0);
  });

  test('when a write fails and the spill refuses, then the hits it did not take stay first, as a retry with the same ids, and stop() reports them lost', async () => {
    const tries: { ids: (string | undefined)[]; retry: boolean }[] = [];
    let spills = 0;
    const buffer = new EngagementBuffer({
      logger,
      flushIntervalMs: 3_600_000,
      writeAt: 1_000,
      maxBatch: 3,
      write: async (batch, retry) => {
        tries.push({ ids: batch.map((h) => h.eventId), retry });
        throw new Error('PostgreSQL is down');
      },
      spill: async () => {
        spills += 1;
        if (spills > 1) throw new Error('Connection is closed.');
      },
    });
    for (const hit of hits(5)) buffer.add(hit);
    await buffer.flush();
    // The first batch went to the spill; the rest, whose push failed, waits in memory.
    expect(buffer.size).toBe(2);
    await buffer.flush();
    expect(tries.map((t) => [t.ids.length, t.retry])).toEqual([[3, false], [2, true]]);
    expect(await buffer.stop(0)).toBe(2);
  });
});
