import { newId, type SmtpReplyData } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { createPool, type Pool } from '../pool';
import type { EmailEventSubject } from './event-data';
import { insertEmails } from './insert-emails';
import { type ClickContext, deliveryKey, type EngagementHit, recordEngagement } from './record-engagement';
import { recordOutcomes, type FeedbackOutcome, type RecipientAttempt, type RecipientFeedback, type RecipientOutcome } from './record-outcomes';

const OK: SmtpReplyData = { code: 250, enhanced_code: '2.0.0', message: 'OK' };
const NO_USER: SmtpReplyData = { code: 550, enhanced_code: '5.1.1', message: 'No such user' };
const LATER: SmtpReplyData = { code: 451, enhanced_code: '4.4.1', message: 'Still trying' };

let db: TestDatabase;
let pool: Pool;
let projectId: string;

beforeAll(async () => {
  db = await createTestDatabase('outcomes');
  pool = createPool(db.url, 12);
  projectId = newId('project');
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Outcomes'] });
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

interface Sent {
  email: EmailEventSubject;
  recipients: { id: string; address: string }[];
}

let counter = 0;
/** An email to `count` fresh recipients, stored as the gateway stores it. */
async function newEmail(count = 1, addresses?: string[]): Promise<Sent> {
  const id = newId('email');
  const to = addresses ?? Array.from({ length: count }, () => `r${++counter}@example.test`);
  const recipients = to.map((address) => ({ id: newId('recipient'), address, kind: 'to' as const }));
  await insertEmails(pool, [
    {
      id, projectId, from: 'a@acme.test', fromAddress: 'a@acme.test', to, cc: [], bcc: [], replyTo: [], subject: 'Hi', html: null, text: 'Hi',
      headers: {}, tags: [], scheduledAt: null, trackOpens: null, trackClicks: null, messageId: `<${id}@acme.test>`, status: 'queued',
      nextAttemptAt: new Date(), recipients, attachments: [],
    },
  ]);
  return { email: { id, projectId, from: 'a@acme.test', to, subject: 'Hi', tags: [] }, recipients };
}

const attempt = (sent: Sent, outcome: RecipientOutcome, attempts = 0, i = 0): RecipientAttempt => ({
  email: sent.email,
  recipient: { ...sent.recipients[i]!, attempts },
  outcome,
  startedAt: new Date(),
  endedAt: new Date(),
});
const feedback = (sent: Sent, outcome: FeedbackOutcome, i = 0): RecipientFeedback => ({ email: sent.email, recipient: sent.recipients[i]!, outcome, at: new Date() });
const delivered = (sent: Sent, i = 0) => attempt(sent, { kind: 'delivered', smtp: OK }, 0, i);
const complaint = (sent: Sent, i = 0) => feedback(sent, { kind: 'complained', detail: 'abuse report' }, i);

async function state(sent: Sent) {
  const email = (await pool.query<{ status: string; last_event: string | null }>({ text: 'SELECT status, last_event FROM emails WHERE id = $1', values: [sent.email.id] })).rows[0]!;
  const recipients = (await pool.query<{ address: string; status: string; attempts: number }>({
    text: 'SELECT address, status, attempts FROM email_recipients WHERE email_id = $1 ORDER BY address',
    values: [sent.email.id],
  })).rows;
  const events = (await pool.query<{ type: string; recipient: string }>({
    text: 'SELECT type, recipient FROM email_events WHERE email_id = $1 ORDER BY created_at, id',
    values: [sent.email.id],
  })).rows;
  const suppressions = (await pool.query<{ address: string; reason: string }>({
    text: 'SELECT address, reason::text FROM suppressions WHERE source_email_id = $1 ORDER BY address',
    values: [sent.email.id],
  })).rows;
  return { status: email.status, lastEvent: email.last_event, recipients, types: events.map((e) => e.type), suppressions };
}

describe('recordOutcomes', () => {
  test('when a stale delay arrives after delivered, then the recipient stays delivered and the delay is on the timeline', async () => {
    const sent = await newEmail();
    await recordOutcomes(pool, [delivered(sent)]);
    await recordOutcomes(pool, [feedback(sent, { kind: 'deferred', smtp: LATER, error: 'Still trying' })]);
    const s = await state(sent);
    expect(s.recipients.map((r) => r.status)).toEqual(['delivered']);
    expect(s.status).toBe('delivered');
    expect(s.types).toEqual(['email.sent', 'email.delivered', 'email.delivery_delayed']);
    expect(s.lastEvent).toBe('email.delivery_delayed');
  });

  test('when the sender records a delay after a late DSN already bounced the recipient, then it stays bounced', async () => {
    const sent = await newEmail();
    await recordOutcomes(pool, [attempt(sent, { kind: 'deferred', smtp: LATER, error: 'x', nextAttemptAt: new Date(Date.now() + 60_000) })]);
    await recordOutcomes(pool, [feedback(sent, { kind: 'bounced', smtp: NO_USER, bounceType: 'hard', suppress: true })]);
    await recordOutcomes(pool, [attempt(sent, { kind: 'deferred', smtp: LATER, error: 'x', nextAttemptAt: new Date(Date.now() + 60_000) }, 1)]);
    const s = await state(sent);
    expect(s.recipients).toEqual([expect.objectContaining({ status: 'bounced', attempts: 2 })]);
    expect(s.status).toBe('bounced');
    expect(s.types).toEqual(['email.sent', 'email.delivery_delayed', 'email.bounced', 'email.delivery_delayed']);
    const next = await pool.query({ text: 'SELECT next_attempt_at FROM email_recipients WHERE email_id = $1', values: [sent.email.id] });
    expect(next.rows[0].next_attempt_at).toBeNull();
  });

  test('when a DSN bounces a delivered recipient, then it is bounced and a 5.1.1 suppresses the address with reason bounce', async () => {
    const sent = await newEmail();
    await recordOutcomes(pool, [delivered(sent)]);
    await recordOutcomes(pool, [feedback(sent, { kind: 'bounced', smtp: NO_USER, bounceType: 'hard', suppress: true })]);
    const s = await state(sent);
    expect(s.recipients.map((r) => r.status)).toEqual(['bounced']);
    expect(s.status).toBe('bounced');
    expect(s.types).toEqual(['email.sent', 'email.delivered', 'email.bounced']);
    expect(s.suppressions).toEqual([{ address: sent.recipients[0]!.address, reason: 'bounce' }]);
  });

  test('when the same complaint arrives twice, then one event, one suppression with reason complaint, and the email is complained', async () => {
    const sent = await newEmail(2);
    await recordOutcomes(pool, [delivered(sent, 0), delivered(sent, 1)]);
    await recordOutcomes(pool, [complaint(sent)]);
    const before = (await pool.query({ text: 'SELECT updated_at FROM emails WHERE id = $1', values: [sent.email.id] })).rows[0];
    await recordOutcomes(pool, [complaint(sent)]);
    const s = await state(sent);
    expect(s.recipients.map((r) => r.status)).toEqual(['complained', 'delivered']);
    expect(s.status).toBe('complained');
    expect(s.types.filter((t) => t === 'email.complained')).toHaveLength(1);
    expect(s.lastEvent).toBe('email.complained');
    expect(s.suppressions).toEqual([{ address: sent.recipients[0]!.address, reason: 'complaint' }]);
    // The replay wrote nothing at all.
    expect((await pool.query({ text: 'SELECT updated_at FROM emails WHERE id = $1', values: [sent.email.id] })).rows[0]).toEqual(before);
  });

  test('when a bounce follows a complaint, then the recipient stays complained and the bounce is on the timeline', async () => {
    const sent = await newEmail();
    await recordOutcomes(pool, [delivered(sent), complaint(sent)]);
    await recordOutcomes(pool, [feedback(sent, { kind: 'bounced', smtp: NO_USER, bounceType: 'hard', suppress: false })]);
    const s = await state(sent);
    expect(s.recipients.map((r) => r.status)).toEqual(['complained']);
    expect(s.status).toBe('complained');
    expect(s.types).toEqual(['email.sent', 'email.delivered', 'email.complained', 'email.bounced']);
  });

  test('when a test address bounces with a 5.1.1, then it is never suppressed', async () => {
    const sent = await newEmail(1, ['bounced@sandbox.mailroom.test']);
    await recordOutcomes(pool, [attempt(sent, { kind: 'bounced', smtp: NO_USER, bounceType: 'hard', suppress: true })]);
    const s = await state(sent);
    expect(s.status).toBe('bounced');
    expect(s.suppressions).toEqual([]);
  });

  test('when many writers record outcomes of one email at once, then none is lost, replays count once and the summary sees them all', async () => {
    const sent = await newEmail(10);
    await Promise.all(sent.recipients.map((_, i) => recordOutcomes(pool, [delivered(sent, i)])));
    let s = await state(sent);
    expect(s.recipients.map((r) => r.status)).toEqual(Array(10).fill('delivered'));
    expect(s.types.filter((t) => t === 'email.sent')).toHaveLength(10);
    expect(s.types.filter((t) => t === 'email.delivered')).toHaveLength(10);
    expect(s.status).toBe('delivered');

    // The same complaint three times at once for two recipients, beside late delays for the others.
    await Promise.all([
      ...[0, 0, 0, 1, 1, 1].map((i) => recordOutcomes(pool, [complaint(sent, i)])),
      ...[2, 3, 4, 5].map((i) => recordOutcomes(pool, [feedback(sent, { kind: 'deferred', smtp: LATER, error: 'x' }, i)])),
    ]);
    s = await state(sent);
    expect(s.recipients.filter((r) => r.status === 'complained')).toHaveLength(2);
    expect(s.recipients.filter((r) => r.status === 'delivered')).toHaveLength(8);
    expect(s.types.filter((t) => t === 'email.complained')).toHaveLength(2);
    expect(s.types.filter((t) => t === 'email.delivery_delayed')).toHaveLength(4);
    expect(s.suppressions.map((x) => x.reason)).toEqual(['complaint', 'complaint']);
    expect(s.status).toBe('complained');
  });

  test('when writers touch the same emails in opposite orders at once, then neither deadlocks and both apply', async () => {
    const a = await newEmail(1);
    const b = await newEmail(1);
    for (let round = 0; round < 5; round++) {
      await Promise.all([
        recordOutcomes(pool, [feedback(a, { kind: 'deferred', smtp: LATER, error: 'x' }), feedback(b, { kind: 'deferred', smtp: LATER, error: 'x' })]),
        recordOutcomes(pool, [feedback(b, { kind: 'deferred', smtp: LATER, error: 'x' }), feedback(a, { kind: 'deferred', smtp: LATER, error: 'x' })]),
      ]);
    }
    for (const sent of [a, b]) {
      const s = await state(sent);
      expect(s.types).toHaveLength(10);
      expect(s.status).toBe('delivery_delayed');
    }
  });
});

describe('recordOutcomes with replayed reports', () => {
  const report = (outcome: FeedbackOutcome, sourceKey: string) => (sent: Sent, i = 0): RecipientFeedback => ({ ...feedback(sent, outcome, i), sourceKey });
  const delayReport = (key: string) => report({ kind: 'deferred', smtp: LATER, error: 'Still trying' }, key);
  const complaintReport = (key: string) => report({ kind: 'complained', detail: 'abuse report' }, key);

  test('when the same delay report is applied twice, then one email.delivery_delayed is appended; another report appends another', async () => {
    const sent = await newEmail();
    await recordOutcomes(pool, [delivered(sent)]);

    expect(await recordOutcomes(pool, [delayReport('inb_delay1')(sent)])).toBe(1);
    expect(await recordOutcomes(pool, [delayReport('inb_delay1')(sent)])).toBe(0);
    expect((await state(sent)).types).toEqual(['email.sent', 'email.delivered', 'email.delivery_delayed']);

    expect(await recordOutcomes(pool, [delayReport('inb_delay2')(sent)])).toBe(1);
    const s = await state(sent);
    expect(s.types).toEqual(['email.sent', 'email.delivered', 'email.delivery_delayed', 'email.delivery_delayed']);
    expect(s.status).toBe('delivered');
  });

  test('when the same complaint report is applied twice, then one event and one suppression', async () => {
    const sent = await newEmail();
    await recordOutcomes(pool, [delivered(sent)]);

    expect(await recordOutcomes(pool, [complaintReport('inb_arf1')(sent)])).toBe(1);
    expect(await recordOutcomes(pool, [complaintReport('inb_arf1')(sent)])).toBe(0);

    const s = await state(sent);
    expect(s.types.filter((t) => t === 'email.complained')).toHaveLength(1);
    expect(s.suppressions).toEqual([{ address: sent.recipients[0]!.address, reason: 'complaint' }]);
    expect(s.status).toBe('complained');
  });

  test('when different reports say what the recipient already shows (a second bounce, a second complaint), then each is on the timeline', async () => {
    const sent = await newEmail(2);
    await recordOutcomes(pool, [delivered(sent, 0), delivered(sent, 1)]);
    const bounce = (key: string) => report({ kind: 'bounced', smtp: NO_USER, bounceType: 'hard', suppress: true }, key);
    expect(await recordOutcomes(pool, [bounce('inb_dsn1')(sent, 0)])).toBe(1);
    expect(await recordOutcomes(pool, [bounce('inb_dsn2')(sent, 0), bounce('inb_dsn1')(sent, 0)])).toBe(1);
    expect(await recordOutcomes(pool, [complaintReport('inb_arf_a')(sent, 1)])).toBe(1);
    expect(await recordOutcomes(pool, [complaintReport('inb_arf_b')(sent, 1)])).toBe(1);
    const s = await state(sent);
    expect(s.types.filter((t) => t === 'email.bounced')).toHaveLength(2);
    expect(s.types.filter((t) => t === 'email.complained')).toHaveLength(2);
    // Without a key (a sandbox complaint), the status it already shows is taken for a replay.
    expect(await recordOutcomes(pool, [feedback(sent, { kind: 'complained', detail: null }, 1)])).toBe(0);
  });

  test('when a report overtakes the commit of the attempt it is about, then its event names attempt 1, not 0', async () => {
    const sent = await newEmail();
    await recordOutcomes(pool, [report({ kind: 'bounced', smtp: NO_USER, bounceType: 'hard', suppress: true }, 'inb_early')(sent)]);
    const { rows } = await pool.query<{ attempt: number }>({ text: "SELECT (data->>'attempt')::int AS attempt FROM email_events WHERE email_id = $1 AND type = 'email.bounced'", values: [sent.email.id] });
    expect(rows).toEqual([{ attempt: 1 }]);
  });

  test('when one report is applied twice in one batch, then it is recorded once', async () => {
    const sent = await newEmail();
    await recordOutcomes(pool, [delivered(sent)]);
    expect(await recordOutcomes(pool, [delayReport('inb_batch')(sent), delayReport('inb_batch')(sent)])).toBe(1);
    expect((await state(sent)).types.filter((t) => t === 'email.delivery_delayed')).toHaveLength(1);
  });

  test('when one report names two recipients, then each gets its event: the key is per recipient and event type', async () => {
    const sent = await newEmail(2);
    await recordOutcomes(pool, [delivered(sent, 0), delivered(sent, 1)]);
    expect(await recordOutcomes(pool, [delayReport('inb_two')(sent, 0), delayReport('inb_two')(sent, 1)])).toBe(2);
    expect(await recordOutcomes(pool, [delayReport('inb_two')(sent, 1)])).toBe(0);
    expect((await state(sent)).types.filter((t) => t === 'email.delivery_delayed')).toHaveLength(2);
  });

  test('when concurrent writers apply the same reports at once, then each report is recorded once', async () => {
    const sent = await newEmail(2);
    await recordOutcomes(pool, [delivered(sent, 0), delivered(sent, 1)]);

    const appended = await Promise.all([
      ...Array.from({ length: 5 }, () => recordOutcomes(pool, [delayReport('inb_race')(sent, 0)])),
      ...Array.from({ length: 5 }, () => recordOutcomes(pool, [complaintReport('inb_race_arf')(sent, 1), delayReport('inb_race')(sent, 0)])),
    ]);

    expect(appended.reduce((a, b) => a + b, 0)).toBe(2);
    const s = await state(sent);
    expect(s.types.filter((t) => t === 'email.delivery_delayed')).toHaveLength(1);
    expect(s.types.filter((t) => t === 'email.complained')).toHaveLength(1);
    expect(s.suppressions).toEqual([{ address: sent.recipients[1]!.address, reason: 'complaint' }]);
  });
});

describe('recordEngagement', () => {
  const hit = (sent: Sent, i: number, kind: 'open' | 'click', extra: Partial<EngagementHit> = {}): EngagementHit => ({
    kind,
    emailId: sent.email.id,
    recipientId: sent.recipients[i]!.id,
    ...(kind === 'click' ? { link: 'https://acme.test/a' } : {}),
    ipAddress: '192.0.2.1',
    userAgent: 'Mail',
    isBot: false,
    at: new Date(Date.now() + 5),
    ...extra,
  });
  const counters = async (sent: Sent) =>
    (await pool.query<{ opens: number; clicks: number; first_opened_at: Date | null }>({
      text: 'SELECT opens, clicks, first_opened_at FROM email_recipients WHERE email_id = $1 ORDER BY address',
      values: [sent.email.id],
    })).rows;

  test('when an open is recorded, then the status is unchanged and lastEvent moves to email.opened', async () => {
    const sent = await newEmail(2);
    await recordOutcomes(pool, [delivered(sent, 0), delivered(sent, 1)]);
    const result = await recordEngagement(pool, [hit(sent, 0, 'open'), hit(sent, 1, 'open')]);
    expect(result).toEqual({ appended: 2, dropped: 0 });
    const s = await state(sent);
    expect(s.status).toBe('delivered');
    expect(s.recipients.map((r) => r.status)).toEqual(['delivered', 'delivered']);
    expect(s.lastEvent).toBe('email.opened');
    expect(s.types.filter((t) => t === 'email.opened')).toHaveLength(2);
  });

  test('when people and bots open and click, then every event is stored with is_bot and only people are counted', async () => {
    const sent = await newEmail(1);
    await recordOutcomes(pool, [delivered(sent)]);
    const firstOpen = new Date(Date.now() + 10);
    await recordEngagement(pool, [
      hit(sent, 0, 'open', { isBot: true, at: new Date(Date.now() + 5), userAgent: 'Mozilla/5.0' }),
      hit(sent, 0, 'open', { at: firstOpen }),
      hit(sent, 0, 'open', { at: new Date(Date.now() + 20) }),
      hit(sent, 0, 'click', { at: new Date(Date.now() + 30) }),
      hit(sent, 0, 'click', { isBot: true, at: new Date(Date.now() + 40) }),
    ]);
    expect(await counters(sent)).toEqual([{ opens: 2, clicks: 1, first_opened_at: firstOpen }]);
    const { rows } = await pool.query<{ type: string; data: any }>({
      text: "SELECT type, data FROM email_events WHERE email_id = $1 AND type IN ('email.opened', 'email.clicked') ORDER BY created_at",
      values: [sent.email.id],
    });
    expect(rows.map((r) => [r.type, (r.data.open ?? r.data.click).is_bot])).toEqual([
      ['email.opened', true],
      ['email.opened', false],
      ['email.opened', false],
      ['email.clicked', false],
      ['email.clicked', true],
    ]);
    expect(rows[3]!.data.click).toEqual({ link: 'https://acme.test/a', ip_address: '192.0.2.1', user_agent: 'Mail', is_bot: false });
    expect(rows[0]!.data).toMatchObject({ email_id: sent.email.id, recipient: sent.recipients[0]!.address, subject: 'Hi' });
  });

  test('when a click is judged by its timing, then the judge sees the delivery and the neighbouring clicks', async () => {
    const sent = await newEmail(1);
    await recordOutcomes(pool, [delivered(sent)]);
    const t0 = Date.now() + 1_000;
    await recordEngagement(pool, [hit(sent, 0, 'click', { at: new Date(t0), link: 'https://acme.test/1' })]);
    const seen: ClickContext[] = [];
    await recordEngagement(pool, [hit(sent, 0, 'click', { at: new Date(t0 + 300), link: 'https://acme.test/2' })], {
      judgeClick: (_click, context) => {
        seen.push(context);
        return context.otherClicks.length > 0;
      },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.deliveredAt).toBeInstanceOf(Date);
    expect(seen[0]!.otherClicks).toEqual([{ at: new Date(t0), link: 'https://acme.test/1' }]);
    expect(await counters(sent)).toEqual([expect.objectContaining({ clicks: 1 })]);
  });

  test('when clicks are on the same link, recorded or in the batch, then they are no neighbours; a click on another link in the batch is', async () => {
    const sent = await newEmail(1);
    await recordOutcomes(pool, [delivered(sent)]);
    const t0 = Date.now() + 1_000;
    const link = 'https://acme.test/same';
    await recordEngagement(pool, [hit(sent, 0, 'click', { at: new Date(t0), link })]);
    const seen: ClickContext[] = [];
    const judgeClick = (_click: unknown, context: ClickContext) => {
      seen.push(context);
      return false;
    };
    await recordEngagement(pool, [hit(sent, 0, 'click', { at: new Date(t0 + 100), link }), hit(sent, 0, 'click', { at: new Date(t0 + 200), link })], { judgeClick });
    expect(seen.map((c) => c.otherClicks)).toEqual([[], []]);
    seen.length = 0;
    await recordEngagement(pool, [hit(sent, 0, 'click', { at: new Date(t0 + 300), link }), hit(sent, 0, 'click', { at: new Date(t0 + 350), link: 'https://acme.test/other' })], { judgeClick });
    expect(seen.map((c) => c.otherClicks)).toEqual([[{ at: new Date(t0 + 350), link: 'https://acme.test/other' }], [{ at: new Date(t0 + 300), link }]]);
  });

  test('when the caller keeps deliveries, then a found delivery is kept and a kept one is used instead of the timeline', async () => {
    const sent = await newEmail(2);
    await recordOutcomes(pool, [delivered(sent, 0)]);
    const deliveries = new Map<string, Date>();
    const seen: ClickContext[] = [];
    const judgeClick = (_click: EngagementHit, context: ClickContext) => {
      seen.push(context);
      return false;
    };
    await recordEngagement(pool, [hit(sent, 0, 'click')], { judgeClick, deliveries });
    const key = deliveryKey(sent.email.id, sent.recipients[0]!.address);
    expect(deliveries.get(key)).toEqual(seen[0]!.deliveredAt);
    expect(seen[0]!.deliveredAt).toBeInstanceOf(Date);
    // Not delivered yet: nothing kept, so a later delivery is still found.
    await recordEngagement(pool, [hit(sent, 1, 'click')], { judgeClick, deliveries });
    expect(seen[1]!.deliveredAt).toBeNull();
    expect(deliveries.size).toBe(1);
    const kept = new Date('2026-01-02T03:04:05Z');
    deliveries.set(key, kept);
    await recordEngagement(pool, [hit(sent, 0, 'click')], { judgeClick, deliveries });
    expect(seen[2]!.deliveredAt).toEqual(kept);
  });

  test('when the email was deleted, then its hits are dropped and the others recorded', async () => {
    const kept = await newEmail(1);
    const gone = await newEmail(1);
    await pool.query({ text: 'DELETE FROM emails WHERE id = $1', values: [gone.email.id] });
    expect(await recordEngagement(pool, [hit(kept, 0, 'open'), hit(gone, 0, 'open')])).toEqual({ appended: 1, dropped: 1 });
  });

  // The spec: opens and clicks are only appended to the timeline, and never move a status.
  test.each([
    ['bounced', { kind: 'bounced', smtp: NO_USER, bounceType: 'hard', suppress: false }],
    ['failed', { kind: 'failed', smtp: null, error: 'gave up' }],
    ['delivery_delayed', { kind: 'deferred', smtp: LATER, error: 'later', nextAttemptAt: new Date(Date.now() + 60_000) }],
  ] as const)('when a %s recipient is opened, then it and its email keep that status and lastEvent is email.opened', async (status, outcome) => {
    const sent = await newEmail(1);
    await recordOutcomes(pool, [attempt(sent, outcome as RecipientOutcome)]);
    await recordEngagement(pool, [hit(sent, 0, 'open')]);
    const s = await state(sent);
    expect([s.status, s.recipients[0]?.status, s.lastEvent, (await counters(sent))[0]?.opens]).toEqual([status, status, 'email.opened', 1]);
  });

  test('when an open is recorded before the delivery, then the delivery still applies, and a late bounce after the open still bounces', async () => {
    const sent = await newEmail(1);
    await recordEngagement(pool, [hit(sent, 0, 'open', { at: new Date() })]);
    expect(await state(sent)).toMatchObject({ status: 'queued', lastEvent: 'email.opened', recipients: [{ status: 'queued' }] });
    await recordOutcomes(pool, [delivered(sent)]);
    expect(await state(sent)).toMatchObject({ status: 'delivered', lastEvent: 'email.delivered', recipients: [{ status: 'delivered' }] });
    await recordEngagement(pool, [hit(sent, 0, 'open', { at: new Date(), isBot: true })]);
    await recordOutcomes(pool, [feedback(sent, { kind: 'bounced', smtp: NO_USER, bounceType: 'hard', suppress: false })]);
    const s = await state(sent);
    expect([s.status, s.recipients[0]?.status, s.lastEvent, (await counters(sent))[0]?.opens]).toEqual(['bounced', 'bounced', 'email.bounced', 1]);
    expect(s.types).toEqual(['email.opened', 'email.sent', 'email.delivered', 'email.opened', 'email.bounced']);
  });
});

describe('recordEngagement and recordOutcomes on the same emails at once', () => {
  const open = (sent: Sent, i: number): EngagementHit => ({
    kind: 'open', emailId: sent.email.id, recipientId: (sent.recipients[i] as { id: string }).id, ipAddress: '198.51.100.7', userAgent: 'Mozilla/5.0 (iPhone)', isBot: false, at: new Date(),
  });

  test('when opens and deliveries of the same emails are written at once, 40 times over, in batches of several emails in opposite orders, then none deadlocks, every status is delivered and lastEvent is the newest event', async () => {
    let deadlocks = 0;
    for (let round = 0; round < 40; round++) {
      const emails = await Promise.all(Array.from({ length: 4 }, () => newEmail(2)));
      const reversed = [...emails].reverse();
      const results = await Promise.allSettled([
        recordOutcomes(pool, emails.flatMap((s) => [delivered(s, 0), delivered(s, 1)])),
        recordEngagement(pool, reversed.map((s) => open(s, 0))),
        recordEngagement(pool, emails.map((s) => open(s, 1))),
        recordOutcomes(pool, reversed.map((s) => delivered(s, 1))),
      ]);
      for (const r of results) {
        if (r.status === 'fulfilled') continue;
        if ((r.reason as { code?: string }).code !== '40P01') throw r.reason;
        deadlocks++;
      }
      const { rows } = await pool.query<{ id: string; status: string; last_event: string; newest: string; opens: number }>({
        text: `SELECT e.id, e.status::text AS status, e.last_event,
                      (SELECT type FROM email_events WHERE email_id = e.id ORDER BY created_at DESC, id DESC LIMIT 1) AS newest,
                      (SELECT sum(opens)::int FROM email_recipients WHERE email_id = e.id) AS opens
                 FROM emails e WHERE e.id = ANY($1::text[])`,
        values: [emails.map((s) => s.email.id)],
      });
      expect(rows).toHaveLength(4);
      for (const row of rows) {
        expect(row.status).toBe('delivered');
        expect(row.last_event).toBe(row.newest);
        expect(row.opens).toBe(2);
      }
    }
    expect(deadlocks).toBe(0);
  }, 60_000);
});
