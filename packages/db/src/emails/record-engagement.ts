import { appendEvents, JsonText, type NewEvent } from '../events';
import { inTransaction, type Pool, type PoolClient } from '../pool';
import { type EmailEventSubject, eventData } from './event-data';

/** An open or a click by one recipient, as the tracking service buffers it (from its token and request). */
export interface EngagementHit {
  kind: 'open' | 'click';
  emailId: string;
  recipientId: string;
  /** The link clicked (the redirect's target); absent for opens. */
  link?: string;
  ipAddress: string | null;
  userAgent: string | null;
  /** The verdict the request alone gives (user agent, network): a proxy, prefetcher or scanner. */
  isBot: boolean;
  at: Date;
  /**
   * The id (evt_…) its event is appended with, given before the first write and kept for every
   * retry, so a retry after a commit whose reply was lost finds it already recorded (`retry`).
   */
  eventId?: string;
}

/** What the database knows that a click's timing is judged against. */
export interface ClickContext {
  /** The recipient's first `email.delivered`; null before it. */
  deliveredAt: Date | null;
  /**
   * The recipient's clicks on its other links around it (a burst across links is a scanner's):
   * per other link, the nearest in time of the latest recorded one from a second before the
   * batch on and the batch's own. Clicks on the same link are not neighbours: a person clicks a
   * link again.
   */
  otherClicks: { at: Date; link: string }[];
}

export interface RecordEngagementOptions {
  /** Whether a click, by its timing, is a scanner's rather than a person's (in addition to the request's verdict). */
  judgeClick?: (click: EngagementHit, context: ClickContext) => boolean;
  /**
   * First deliveries already found, by `deliveryKey(emailId, address)`, kept by the caller across
   * batches (bounded): a recipient's first delivery never moves once recorded, so it is looked up
   * once instead of on every batch of its clicks.
   */
  deliveries?: { get(key: string): Date | undefined; set(key: string, at: Date): void };
  /**
   * The hits (or some) were in a write that failed, which may have committed all the same (the
   * connection lost before COMMIT's reply): those whose `eventId` is already in the outbox are
   * left out, so a retried batch is recorded once. One lookup per batch, on retries only.
   */
  retry?: boolean;
}

/** The key of a recipient's first delivery in `RecordEngagementOptions.deliveries`. */
export const deliveryKey = (emailId: string, address: string): string => `${emailId} ${address}`;

export interface EngagementResult {
  /** Events appended; when any were, notify the `events` queue (after this has returned, committed). */
  appended: number;
  /** Hits about an email or recipient that no longer exists (deleted), dropped. */
  dropped: number;
}

// Clicks recorded this long before a batch's first click still count as its neighbours, in ms.
const CLICK_NEIGHBOURHOOD_MS = 1_000;
// Recorded clicks of one email read back as neighbours at most, the newest first: a scanner
// clicks each link once, a person a few; only a load generator clicks an email this often a second.
const NEIGHBOURS_READ = 1_000;

interface EmailRow {
  id: string;
  project_id: string;
  from_header: string;
  to: string[];
  subject: string;
  tags: unknown;
}

/**
 * Appends engagement events (`email.opened`, `email.clicked`), any number at once, in one
 * transaction through the one append path: each becomes an event on its recipient's timeline
 * with `open`/`click` `{…, is_bot}` (DESIGN §5), the recipient's `opens`, `clicks` and
 * `firstOpenedAt` count the events of people (is_bot false), and each email's `lastEvent`
 * moves; no status ever changes (the spec's rule). The emails are locked in id order, as the
 * outcome writer locks them, so a concurrent outcome and open leave the newest event as
 * lastEvent. Hits for a deleted email are dropped. A hit's `eventId` is its event's id, so a
 * batch retried after a commit whose reply was lost (`retry`) is recorded once.
 */
export async function recordEngagement(pool: Pool, hits: readonly EngagementHit[], options: RecordEngagementOptions = {}): Promise<EngagementResult> {
  if (hits.length === 0) return { appended: 0, dropped: 0 };
  const emailIds = [...new Set(hits.map((h) => h.emailId))].sort();
  return inTransaction(pool, async (client) => {
    const emails = await lockEmails(client, emailIds);
    // After the locks: a failed write still running in PostgreSQL (it held them) has ended, committed or not.
    const recorded = options.retry ? await recordedEvents(client, hits) : null;
    const addresses = await recipientAddresses(client, [...new Set(hits.map((h) => h.recipientId))]);
    const fresh = recorded ? hits.filter((h) => h.eventId === undefined || !recorded.has(h.eventId)) : hits;
    const known = fresh.filter((h) => emails.has(h.emailId) && addresses.get(h.recipientId)?.emailId === h.emailId);
    const judged = options.judgeClick ? await judgeClicks(client, known, addresses, options.judgeClick, options.deliveries) : known;
    // Straight to the one append path, each event's data written as JSON text: the fields every
    // event about an email carries are serialized once per recipient, not once per event.
    const shared = new Map<string, string>();
    const events: NewEvent[] = judged.map((hit) => {
      const email = emails.get(hit.emailId) as EmailEventSubject;
      const recipient = addresses.get(hit.recipientId)?.address as string;
      let head = shared.get(hit.recipientId);
      if (head === undefined) {
        head = JSON.stringify(eventData(email, recipient)).slice(0, -1);
        shared.set(hit.recipientId, head);
      }
      return {
        id: hit.eventId,
        projectId: email.projectId,
        subject: { kind: 'email', emailId: email.id, recipient },
        type: hit.kind === 'open' ? 'email.opened' : 'email.clicked',
        data: new JsonText(`${head},${detailJson(hit)}}`),
        createdAt: hit.at,
      };
    });
    if (events.length > 0) {
      await appendEvents(client, events);
      await countPeople(client, judged);
      await client.query({
        name: 'mailroom-update-last-event',
        text: `UPDATE emails e
                  SET last_event = (SELECT type FROM email_events WHERE email_id = e.id ORDER BY created_at DESC, id DESC LIMIT 1), updated_at = now()
                WHERE e.id = ANY($1::text[])`,
        values: [[...new Set(judged.map((h) => h.emailId))]],
      });
    }
    return { appended: events.length, dropped: fresh.length - known.length };
  });
}

/** The `eventId`s of the hits already in the outbox: written by an earlier try whose commit went through. */
async function recordedEvents(client: PoolClient, hits: readonly EngagementHit[]): Promise<Set<string>> {
  const ids = hits.flatMap((h) => (h.eventId === undefined ? [] : [h.eventId]));
  if (ids.length === 0) return new Set();
  const { rows } = await client.query<{ id: string }>({ name: 'mailroom-engagement-recorded', text: 'SELECT id FROM email_events WHERE id = ANY($1::text[])', values: [ids] });
  return new Set(rows.map((r) => r.id));
}

/** The event's `open` or `click` member (DESIGN §5) as JSON: `"open":{…}` or `"click":{"link":…, …}`. */
function detailJson(hit: EngagementHit): string {
  const seen = `"ip_address":${JSON.stringify(hit.ipAddress)},"user_agent":${JSON.stringify(hit.userAgent)},"is_bot":${hit.isBot}`;
  return hit.kind === 'open' ? `"open":{${seen}}` : `"click":{"link":${JSON.stringify(hit.link ?? '')},${seen}}`;
}

async function lockEmails(client: PoolClient, emailIds: readonly string[]): Promise<Map<string, EmailEventSubject>> {
  const { rows } = await client.query<EmailRow>({
    name: 'mailroom-lock-engaged-emails',
    text: 'SELECT id, project_id, from_header, "to", subject, tags FROM emails WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
    values: [emailIds],
  });
  return new Map(rows.map((r) => [r.id, { id: r.id, projectId: r.project_id, from: r.from_header, to: r.to, subject: r.subject, tags: r.tags }]));
}

async function recipientAddresses(client: PoolClient, recipientIds: readonly string[]): Promise<Map<string, { emailId: string; address: string }>> {
  const { rows } = await client.query<{ id: string; email_id: string; address: string }>({
    name: 'mailroom-engaged-recipients',
    text: 'SELECT id, email_id, address FROM email_recipients WHERE id = ANY($1::text[])',
    values: [recipientIds],
  });
  return new Map(rows.map((r) => [r.id, { emailId: r.email_id, address: r.address }]));
}

/** The hits, each click's `isBot` also true when `judge` says so from its timing. */
async function judgeClicks(
  client: PoolClient,
  hits: readonly EngagementHit[],
  addresses: ReadonlyMap<string, { emailId: string; address: string }>,
  judge: NonNullable<RecordEngagementOptions['judgeClick']>,
  known: RecordEngagementOptions['deliveries'],
): Promise<EngagementHit[]> {
  const clicks = hits.filter((h) => h.kind === 'click');
  if (clicks.length === 0) return [...hits];
  const emailIds = [...new Set(clicks.map((c) => c.emailId))];
  const since = new Date(Math.min(...clicks.map((c) => c.at.getTime())) - CLICK_NEIGHBOURHOOD_MS);
  const key = (emailId: string, address: string) => deliveryKey(emailId, address);
  const pairs = [...new Map(clicks.map((c) => [key(c.emailId, addresses.get(c.recipientId)?.address as string), c])).values()];
  const deliveredAt = new Map<string, Date>();
  const unknown = pairs.filter((c) => {
    const k = key(c.emailId, addresses.get(c.recipientId)?.address as string);
    const at = known?.get(k);
    if (at !== undefined) deliveredAt.set(k, at);
    return at === undefined;
  });
  if (unknown.length > 0) {
    // Each clicking recipient's first delivery not known yet, found by walking its email's
    // timeline from the start (index on email_id, created_at): a delivery comes early.
    const { rows: delivered } = await client.query<{ email_id: string; recipient: string; ms: number }>({
      name: 'mailroom-engaged-deliveries',
      text: `SELECT r.email_id, r.recipient, extract(epoch FROM d.created_at AT TIME ZONE 'UTC') * 1000 AS ms
               FROM unnest($1::text[], $2::text[]) AS r(email_id, recipient)
               CROSS JOIN LATERAL (SELECT created_at FROM email_events e
                                    WHERE e.email_id = r.email_id AND e.recipient = r.recipient AND e.type = 'email.delivered'
                                    ORDER BY e.created_at LIMIT 1) d`,
      values: [unknown.map((c) => c.emailId), unknown.map((c) => addresses.get(c.recipientId)?.address as string)],
    });
    for (const d of delivered) {
      const at = new Date(Number(d.ms));
      deliveredAt.set(key(d.email_id, d.recipient), at);
      known?.set(key(d.email_id, d.recipient), at);
    }
  }
  // A busy email's clicks arrive faster than statistics follow them, so the planner, expecting a
  // handful of rows in the window, fetches every one by bitmap and sorts them all (18 ms a batch
  // at 20,000 clicks a second); without bitmaps it walks the (email_id, created_at) index
  // backwards and stops at the limit (about 1 ms). Set for this statement only.
  await client.query('SET LOCAL enable_bitmapscan = off');
  const { rows: recorded } = await client.query<{ email_id: string; recipient: string; ms: number; link: string }>({
    name: 'mailroom-engaged-recent-clicks',
    // Only the latest recorded click per recipient and link: recorded clicks came before the
    // batch's (one buffer writes in arrival order), so the latest is the nearest. Each email's
    // window is read newest first and at most NEIGHBOURS_READ clicks deep, so a recipient clicking
    // thousands of times a second (no person does) is not read back whole into every batch.
    // Grouped by hashing, with the time converted only for the groups.
    text: `SELECT email_id, recipient, link, extract(epoch FROM max(created_at) AT TIME ZONE 'UTC') * 1000 AS ms
             FROM unnest($1::text[]) AS r(id)
             CROSS JOIN LATERAL (SELECT email_id, recipient, data->'click'->>'link' AS link, created_at
                                   FROM email_events
                                  WHERE email_id = r.id AND recipient = ANY($3::text[]) AND type = 'email.clicked' AND created_at >= ($2::timestamptz AT TIME ZONE 'UTC')
                                  ORDER BY created_at DESC
                                  LIMIT ${NEIGHBOURS_READ}) c
            GROUP BY email_id, recipient, link`,
    values: [emailIds, since.toISOString(), [...new Set(pairs.map((c) => addresses.get(c.recipientId)?.address as string))]],
  });
  await client.query('RESET enable_bitmapscan');
  // Per recipient and link, every click around the batch, sorted by time when first looked in: a
  // neighbour on another link is what the judge looks for, and one per link (the nearest in
  // time) is enough to find it, found by binary search so a batch of a busy recipient's clicks
  // costs n log n, not n². A recipient clicking one link only has no neighbours to look for.
  const clicksOf = new Map<string, Map<string, TimedClick[]>>();
  const add = (k: string, click: TimedClick) => {
    let links = clicksOf.get(k);
    if (!links) {
      links = new Map();
      clicksOf.set(k, links);
    }
    const list = links.get(click.link);
    if (list) list.push(click);
    else links.set(click.link, [click]);
  };
  for (const r of recorded) add(key(r.email_id, r.recipient), { ms: Number(r.ms), link: r.link });
  for (const c of clicks) add(key(c.emailId, addresses.get(c.recipientId)?.address as string), { ms: c.at.getTime(), link: c.link ?? '', hit: c });
  const sorted = new Set<TimedClick[]>();
  return hits.map((hit) => {
    if (hit.kind !== 'click' || hit.isBot) return hit;
    const k = key(hit.emailId, addresses.get(hit.recipientId)?.address as string);
    const otherClicks: { at: Date; link: string }[] = [];
    const links = clicksOf.get(k);
    if (links !== undefined && links.size > 1) {
      for (const [link, list] of links) {
        if (link === (hit.link ?? '')) continue;
        if (!sorted.has(list)) {
          list.sort((a, b) => a.ms - b.ms);
          sorted.add(list);
        }
        const nearest = nearestOther(list, hit);
        if (nearest) otherClicks.push({ at: new Date(nearest.ms), link });
      }
    }
    return judge(hit, { deliveredAt: deliveredAt.get(k) ?? null, otherClicks }) ? { ...hit, isBot: true } : hit;
  });
}

interface TimedClick {
  ms: number;
  link: string;
  /** The batch's hit this click is, when it is one of the batch. */
  hit?: EngagementHit;
}

/** In a list sorted by time, the click nearest to `hit` in time that is not `hit` itself; the earlier one on a tie. */
function nearestOther(list: readonly TimedClick[], hit: EngagementHit): TimedClick | undefined {
  const ms = hit.at.getTime();
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as TimedClick).ms < ms) lo = mid + 1;
    else hi = mid;
  }
  // Every click before lo is earlier than `hit`, so not `hit`; from lo on, `hit` is skipped once at most.
  const before = lo > 0 ? list[lo - 1] : undefined;
  let after: TimedClick | undefined;
  for (let i = lo; i < list.length; i++) {
    const c = list[i] as TimedClick;
    if (c.hit !== hit) {
      after = c;
      break;
    }
  }
  if (!before) return after;
  if (!after) return before;
  return ms - before.ms <= after.ms - ms ? before : after;
}

/** Adds the people's opens and clicks to their recipients' counters, and sets a first human open. */
async function countPeople(client: PoolClient, hits: readonly EngagementHit[]): Promise<void> {
  // The first open as epoch ms, turned into a timestamp once per recipient.
  const counts = new Map<string, { opens: number; clicks: number; firstOpenedMs: number | null }>();
  for (const hit of hits) {
    if (hit.isBot) continue;
    let c = counts.get(hit.recipientId);
    if (c === undefined) {
      c = { opens: 0, clicks: 0, firstOpenedMs: null };
      counts.set(hit.recipientId, c);
    }
    if (hit.kind === 'open') {
      c.opens += 1;
      const at = hit.at.getTime();
      if (c.firstOpenedMs === null || at < c.firstOpenedMs) c.firstOpenedMs = at;
    } else {
      c.clicks += 1;
    }
  }
  if (counts.size === 0) return;
  await client.query({
    name: 'mailroom-count-engagement',
    text: `UPDATE email_recipients r
              SET opens = r.opens + v.opens, clicks = r.clicks + v.clicks,
                  first_opened_at = CASE WHEN v.first_opened_at IS NULL THEN r.first_opened_at
                                         ELSE LEAST(coalesce(r.first_opened_at, 'infinity'), v.first_opened_at AT TIME ZONE 'UTC') END,
                  updated_at = now()
             FROM jsonb_to_recordset($1::jsonb) AS v(id text, opens int, clicks int, first_opened_at timestamptz)
            WHERE r.id = v.id`,
    values: [JSON.stringify([...counts].map(([id, c]) => ({ id, opens: c.opens, clicks: c.clicks, first_opened_at: c.firstOpenedMs === null ? null : new Date(c.firstOpenedMs).toISOString() })))],
  });
}
