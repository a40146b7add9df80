/**
 * What `GET /stats` counts: events of these types, by the name of their field in the answer.
 * `webhook.test` and `domain.updated` are not about mail and are not counted.
 */
export const STAT_TYPES = {
  'email.sent': 'sent',
  'email.delivered': 'delivered',
  'email.delivery_delayed': 'deliveryDelayed',
  'email.bounced': 'bounced',
  'email.complained': 'complained',
  'email.failed': 'failed',
  'email.suppressed': 'suppressed',
  'email.opened': 'opened',
  'email.clicked': 'clicked',
  'email.received': 'received',
} as const;

export type StatName = (typeof STAT_TYPES)[keyof typeof STAT_TYPES];

/** One count per stat, all present. */
export type StatCounts = Record<StatName, number>;

export const STAT_NAMES = Object.values(STAT_TYPES) as StatName[];

export function zeroCounts(): StatCounts {
  return Object.fromEntries(STAT_NAMES.map((name) => [name, 0])) as StatCounts;
}

/**
 * The one rule of which rows of `email_events` are counted, as SQL over that table: the types
 * above, and opens and clicks only of people (`is_bot` false or absent), as the recipient's
 * `opens`/`clicks` count them. The rollup and the live tail both use it, so they agree.
 */
export const COUNTED_EVENT = `email_events.type IN (${Object.keys(STAT_TYPES)
  .map((type) => `'${type}'`)
  .join(', ')})
  AND NOT coalesce((coalesce(email_events.data -> 'open', email_events.data -> 'click') ->> 'is_bot')::boolean, false)`;
