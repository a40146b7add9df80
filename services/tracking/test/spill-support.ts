import { createRedis, newId, type Redis } from '@mailroom/core';
import type { EngagementHit, Pool } from '@mailroom/db';
import { EngagementSpill } from '../src/engagement-spill';

/** A Redis client of the test's own, for looking at (and cleaning up) a deployment's spill. */
export async function adminRedis(): Promise<Redis> {
  const redis = createRedis('redis://127.0.0.1:6379', 'request');
  await redis.connect();
  return redis;
}

/** The spill's keys under QUEUE_PREFIX `prefix`, as EngagementSpill names them. */
export const spillKey = (prefix: string) => `${prefix}:tracking:spill`;

/** Events in the spill, whether waiting or claimed by a drainer. */
export async function spilledEvents(redis: Redis, prefix: string): Promise<number> {
  const claims = await redis.keys(`${spillKey(prefix)}:claim:*`);
  const lengths = await Promise.all([spillKey(prefix), ...claims].map((key) => redis.llen(key)));
  return lengths.reduce((a, b) => a + b, 0);
}

/** Every key the test's deployment left in Redis, deleted. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
}

/** Opens of one recipient, each with its event id, pushed to the spill as the buffer pushes a batch PostgreSQL did not take. */
export async function seedSpill(redis: Redis, prefix: string, target: { emailId: string; recipientId: string }, count: number): Promise<EngagementHit[]> {
  const at = Date.now() - 60_000;
  const hits: EngagementHit[] = Array.from({ length: count }, (_, i) => ({
    kind: 'open',
    emailId: target.emailId,
    recipientId: target.recipientId,
    ipAddress: '198.51.100.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0',
    isBot: false,
    at: new Date(at + i),
    eventId: newId('event'),
  }));
  await new EngagementSpill({ redis, prefix, owner: 'seeder' }).push(hits);
  return hits;
}

/** The email's engagement events: how many of each type, how many distinct ids, and its recipients' counted opens. */
export async function engagementOf(pool: Pool, emailId: string): Promise<{ opened: number; clicked: number; ids: number; opens: number }> {
  const { rows } = await pool.query<{ opened: number; clicked: number; ids: number; opens: number }>({
    text: `SELECT count(*) FILTER (WHERE type = 'email.opened')::int AS opened,
                  count(*) FILTER (WHERE type = 'email.clicked')::int AS clicked,
                  count(DISTINCT id)::int AS ids,
                  (SELECT coalesce(sum(opens), 0)::int FROM email_recipients WHERE email_id = $1) AS opens
             FROM email_events WHERE email_id = $1 AND type IN ('email.opened', 'email.clicked')`,
    values: [emailId],
  });
  return rows[0] as { opened: number; clicked: number; ids: number; opens: number };
}

/** A metric's value in a Prometheus text exposition (no labels), or undefined. */
export function metricValue(text: string, name: string): number | undefined {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}
