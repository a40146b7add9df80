import type { Logger, Redis } from '@mailroom/core';
import type { EngagementHit } from '@mailroom/db';
import { until } from '../../../test/support/until';
import { EngagementSpill } from '../src/engagement-spill';
import { SpillDrainer } from '../src/spill-drainer';
import { adminRedis, deleteKeys, seedSpill, spilledEvents } from './spill-support';

// A spilled chunk whose write fails while PostgreSQL answers (an event PostgreSQL refuses, a
// chunk too big for the statement timeout) must not hold up the events behind it for ever. The
// drainer runs against a real Redis spill; its write is the test's, refusing one event.

let redis: Redis;
const prefixes: string[] = [];
beforeAll(async () => {
  redis = await adminRedis();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeys(redis, prefix);
  redis.disconnect();
});

function drainerFor(prefix: string, write: (hits: EngagementHit[]) => Promise<void>, probe: () => Promise<unknown>) {
  const lines: { msg: string; nextChunk?: number }[] = [];
  // The drainer's lines, as objects: what pino would write, without a stream to parse.
  const record = (fields: object, msg: string) => lines.push({ ...fields, msg });
  const logger = { info: record, warn: record, error: record } as unknown as Logger;
  const drainer = new SpillDrainer({ spill: new EngagementSpill({ redis, prefix }), write, probe, logger, intervalMs: 20, maxBatch: 64 });
  return { drainer, lines };
}

test('when one spilled event is refused while PostgreSQL answers, then the chunks around it shrink, the other events are all written, and it waits alone at the end of the spill', async () => {
  const prefix = `spill-poison-${process.pid}`;
  prefixes.push(prefix);
  const hits = await seedSpill(redis, prefix, { emailId: 'em_poison', recipientId: 'rcpt_poison' }, 200);
  const poison = hits[37]?.eventId;
  const written = new Set<string>();
  const { drainer, lines } = drainerFor(
    prefix,
    async (chunk) => {
      if (chunk.some((h) => h.eventId === poison)) throw new Error('invalid input syntax');
      for (const h of chunk) written.add(h.eventId ?? '');
    },
    async () => undefined,
  );
  drainer.start();
  try {
    await until(async () => written.size === 199, 20_000, 'every other event written', 20);
  } finally {
    await drainer.stop();
  }
  expect(written.has(poison ?? '')).toBe(false);
  expect(await spilledEvents(redis, prefix)).toBe(1);
  const warned = lines.filter((l) => l.msg.startsWith('spilled engagement event'));
  expect(warned.map((l) => l.nextChunk)).toEqual(expect.arrayContaining([32, 1]));
  expect(warned.some((l) => l.msg.includes('moved to the end of the spill'))).toBe(true);
});

test('when writes fail because PostgreSQL does not answer, then the chunk is neither halved nor moved: it is written whole, first, once PostgreSQL is back', async () => {
  const prefix = `spill-outage-${process.pid}`;
  prefixes.push(prefix);
  const hits = await seedSpill(redis, prefix, { emailId: 'em_outage', recipientId: 'rcpt_outage' }, 100);
  let down = true;
  const chunks: string[][] = [];
  const { drainer, lines } = drainerFor(
    prefix,
    async (chunk) => {
      if (down) throw new Error('connect ECONNREFUSED');
      chunks.push(chunk.map((h) => h.eventId ?? ''));
    },
    async () => {
      if (down) throw new Error('connect ECONNREFUSED');
    },
  );
  drainer.start();
  try {
    await until(async () => lines.length >= 1, 5_000, 'a failed write', 20);
    down = false;
    await until(async () => chunks.flat().length === 100, 10_000, 'every event written', 20);
  } finally {
    await drainer.stop();
  }
  expect(chunks[0]).toEqual(hits.slice(0, 64).map((h) => h.eventId));
  expect(lines.every((l) => l.nextChunk === undefined)).toBe(true);
});
