import { STAT_NAMES, type StatName } from '@mailroom/db';
import { z } from 'zod';
import { timestamp } from '../../schemas/common';

const DESCRIPTIONS: Record<StatName, string> = {
  sent: '`email.sent` events: recipients whose delivery began.',
  delivered: '`email.delivered` events.',
  deliveryDelayed: '`email.delivery_delayed` events (each deferral).',
  bounced: '`email.bounced` events.',
  complained: '`email.complained` events.',
  failed: '`email.failed` events.',
  suppressed: '`email.suppressed` events.',
  opened: '`email.opened` events of people (`is_bot` false): privacy proxies and prefetchers are not counted.',
  clicked: '`email.clicked` events of people (`is_bot` false): link scanners are not counted.',
  received: '`email.received` events (one per matching route).',
};

const countsShape = Object.fromEntries(STAT_NAMES.map((name) => [name, z.number().int().meta({ description: DESCRIPTIONS[name] })])) as Record<
  StatName,
  z.ZodNumber
>;

export const statsCountsSchema = z.object(countsShape).meta({ id: 'StatsCounts', description: "The project's events by type, summed over the whole range." });

const bucketSchema = z
  .object({ start: timestamp.meta({ description: 'The start of the bucket (UTC); it lasts one interval.' }), ...countsShape })
  .meta({ id: 'StatsBucket' });

const rate = (description: string) => z.number().min(0).meta({ description, example: 0.012 });

export const statsSchema = z
  .object({
    object: z.literal('stats'),
    interval: z.enum(['hour', 'day']),
    from: timestamp.meta({ description: 'The start of the first bucket (the requested `from` truncated to the interval, UTC).' }),
    to: timestamp.meta({ description: 'The end of the last bucket, exclusive (the requested `to` rounded up to the interval, UTC).' }),
    data: z.array(bucketSchema).meta({ description: 'Every bucket of the range, oldest first; those without events are zero.' }),
    totals: statsCountsSchema,
    bounceRate: rate('bounced / sent over the whole range (0 when nothing was sent): a rate mailbox providers judge a sender by.'),
    complaintRate: rate('complained / delivered over the whole range (0 when nothing was delivered): a rate mailbox providers judge a sender by.'),
  })
  .meta({ id: 'Stats' });

export type StatsBody = z.infer<typeof statsSchema>;
