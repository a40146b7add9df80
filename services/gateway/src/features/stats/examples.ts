import type { OperationExample } from '../../openapi/examples';

const zero = { sent: 0, delivered: 0, deliveryDelayed: 0, bounced: 0, complained: 0, failed: 0, suppressed: 0, opened: 0, clicked: 0, received: 0 };
const day1 = { sent: 1200, delivered: 1183, deliveryDelayed: 9, bounced: 14, complained: 1, failed: 0, suppressed: 3, opened: 512, clicked: 87, received: 12 };
const day2 = { sent: 980, delivered: 971, deliveryDelayed: 4, bounced: 8, complained: 0, failed: 1, suppressed: 0, opened: 430, clicked: 61, received: 9 };

/** The documented example of `GET /stats`: three days, one of them without events. */
export const STATS_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  getStats: {
    query: { from: '2026-11-19T00:00:00Z', to: '2026-11-22T00:00:00Z', interval: 'day' },
    response: {
      object: 'stats',
      interval: 'day',
      from: '2026-11-19T00:00:00.000Z',
      to: '2026-11-22T00:00:00.000Z',
      data: [
        { start: '2026-11-19T00:00:00.000Z', ...day1 },
        { start: '2026-11-20T00:00:00.000Z', ...zero },
        { start: '2026-11-21T00:00:00.000Z', ...day2 },
      ],
      totals: Object.fromEntries(Object.keys(zero).map((k) => [k, day1[k as keyof typeof day1] + day2[k as keyof typeof day2]])),
      bounceRate: 22 / 2180,
      complaintRate: 1 / 2154,
    },
  },
};
