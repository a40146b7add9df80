import { Agent, request } from 'node:http';
import { loadConfig, newId, type SmtpReplyData } from '@mailroom/core';
import { createPool, insertEmails, type Pool, recordOutcomes } from '@mailroom/db';
import { createKey, signUp, startTestGateway, testEnv, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { startTracking, type RunningTracking } from '../src';
import { tokens } from './support';

const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
const SCANNER = 'python-requests/2.31.0';
const GMAIL_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
const OK: SmtpReplyData = { code: 250, enhanced_code: '2.0.0', message: 'OK' };

let gateway: TestGateway;
let tracking: RunningTracking;
let pool: Pool;
let api: ApiClient;
let projectId: string;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

beforeAll(async () => {
  gateway = await startTestGateway({ label: 'trkrecords' });
  // Clicks right after the delivery count as people's here; the rule's own threshold has its tests.
  tracking = await startTracking(loadConfig(testEnv(gateway.database, { TRACKING_PORT: '0', TRACKING_MIN_CLICK_SECONDS: '0' })), {
    host: '127.0.0.1',
    flushIntervalMs: 3_600_000,
    writeAt: 1_000_000,
    maxBatch: 1_000_000,
  });
  const owner = await signUp(gateway.api);
  projectId = owner.projectId;
  api = gateway.api.as({ token: (await createKey(owner.as)).token });
  pool = createPool(gateway.database.url, 3);
});
afterAll(async () => {
  agent.destroy();
  await tracking.stop();
  await pool.end();
  await gateway.close();
});

interface Sent {
  emailId: string;
  recipients: { id: string; address: string }[];
}

/** Tracked emails of the test's project, each to `count` recipients; delivered (recorded now) unless told otherwise. */
async function newEmails(emails: number, count: number, options: { delivered?: boolean } = {}): Promise<Sent[]> {
  const sent: Sent[] = [];
  const rows = Array.from({ length: emails }, () => {
    const id = newId('email');
    const recipients = Array.from({ length: count }, (_, i) => ({ id: newId('recipient'), address: `r${i}@example.test`, kind: 'to' as const }));
    sent.push({ emailId: id, recipients });
    return {
      id, projectId, from: 'a@acme.test', fromAddress: 'a@acme.test', to: recipients.map((r) => r.address), cc: [], bcc: [], replyTo: [], subject: 'S',
      html: '<p>x</p>', text: null, headers: {}, tags: [], scheduledAt: null, trackOpens: true, trackClicks: true, messageId: `${id}@acme.test`,
      status: 'queued' as const, nextAttemptAt: new Date(Date.now() + 3_600_000), recipients, attachments: [],
    };
  });
  await insertEmails(pool, rows);
  if (options.delivered !== false) {
    await recordOutcomes(
      pool,
      sent.flatMap((s) =>
        s.recipients.map((r) => ({
          email: { id: s.emailId, projectId, from: 'a@acme.test', to: s.recipients.map((x) => x.address), subject: 'S', tags: [] },
          recipient: { ...r, attempts: 0 },
          outcome: { kind: 'delivered' as const, smtp: OK },
          startedAt: new Date(),
          endedAt: new Date(),
        })),
      ),
    );
  }
  return sent;
}

const openUrl = (s: Sent, i = 0) => `${tracking.url}/o/${tokens.sign({ kind: 'open', emailId: s.emailId, recipientId: (s.recipients[i] as { id: string }).id })}`;
const clickUrl = (s: Sent, link: string, i = 0) => `${tracking.url}/c/${tokens.sign({ kind: 'click', emailId: s.emailId, recipientId: (s.recipients[i] as { id: string }).id, url: link })}`;

function hit(url: string, userAgent = BROWSER): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { 'user-agent': userAgent } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function metric(name: string): Promise<number> {
  const text = (await fetch(`${tracking.url}/metrics`).then((r) => r.text())) as string;
  const line = text.split('\n').find((l) => l.startsWith(name));
  return Number(line?.split(' ').pop() ?? 0);
}

async function engagement(emailId: string): Promise<{ type: string; recipient: string; link: string | null; isBot: boolean }[]> {
  const { rows } = await pool.query<{ type: string; recipient: string; link: string | null; is_bot: boolean }>({
    text: `SELECT type, recipient, coalesce(data->'click'->>'link', null) AS link, coalesce(data->'click'->'is_bot', data->'open'->'is_bot')::boolean AS is_bot
             FROM email_events WHERE email_id = $1 AND type IN ('email.opened', 'email.clicked') ORDER BY created_at, position`,
    values: [emailId],
  });
  return rows.map((r) => ({ type: r.type, recipient: r.recipient, link: r.link, isBot: r.is_bot }));
}

describe('what the tracking service records', () => {
  test('when an email is deleted while its opens and clicks wait in the buffer, then they are dropped and counted, and the rest of the batch is written', async () => {
    const [kept, deleted] = (await newEmails(2, 1)) as [Sent, Sent];
    const droppedBefore = await metric('mailroom_tracking_events_dropped_total{reason="email_deleted"}');
    for (const s of [kept, deleted]) {
      for (let i = 0; i < 5; i++) expect((await hit(openUrl(s))).status).toBe(200);
      expect((await hit(clickUrl(s, 'https://acme.example/a'))).status).toBe(302);
    }
    expect(tracking.buffer.size).toBe(12);
    await pool.query({ text: 'DELETE FROM emails WHERE id = $1', values: [deleted.emailId] });
    await tracking.buffer.flush();
    expect(tracking.buffer.size).toBe(0);
    expect((await engagement(kept.emailId)).length).toBe(6);
    expect(await engagement(deleted.emailId)).toEqual([]);
    expect(await metric('mailroom_tracking_events_dropped_total{reason="email_deleted"}')).toBe(droppedBefore + 6);
    expect((await api.get(`/emails/${deleted.emailId}`)).status).toBe(404);
  });

  test('when two recipients of one email click different links within a second, a person clicks one link twice, and a click comes before its delivery is recorded, then only the scanner-like clicks are bots', async () => {
    const [email] = (await newEmails(1, 2)) as [Sent];
    const [undelivered] = (await newEmails(1, 1, { delivered: false })) as [Sent];
    // Recipient 0 clicks /a twice, recipient 1 clicks /b at once: per recipient, no other link is near.
    expect((await hit(clickUrl(email, 'https://acme.example/a', 0))).location).toBe('https://acme.example/a');
    expect((await hit(clickUrl(email, 'https://acme.example/b', 1))).location).toBe('https://acme.example/b');
    expect((await hit(clickUrl(email, 'https://acme.example/a', 0))).location).toBe('https://acme.example/a');
    expect((await hit(clickUrl(undelivered, 'https://acme.example/a'))).status).toBe(302);
    await tracking.buffer.flush();
    expect((await engagement(email.emailId)).map((e) => [e.recipient, e.link, e.isBot])).toEqual([
      ['r0@example.test', 'https://acme.example/a', false],
      ['r1@example.test', 'https://acme.example/b', false],
      ['r0@example.test', 'https://acme.example/a', false],
    ]);
    expect((await engagement(undelivered.emailId)).map((e) => e.isBot)).toEqual([true]);
  });

  test('when people, a privacy proxy and a scanner open and click, then GET /emails/{id} and /clicks count the people only', async () => {
    const [email] = (await newEmails(1, 2)) as [Sent];
    expect((await hit(openUrl(email, 0), GMAIL_PROXY)).status).toBe(200);
    expect((await hit(openUrl(email, 1), SCANNER)).status).toBe(200);
    await tracking.buffer.flush();
    const opened = Date.now();
    expect((await hit(openUrl(email, 0))).status).toBe(200);
    expect((await hit(openUrl(email, 0))).status).toBe(200);
    expect((await hit(clickUrl(email, 'https://acme.example/a', 0))).status).toBe(302);
    expect((await hit(clickUrl(email, 'https://acme.example/a', 1), SCANNER)).status).toBe(302);
    expect((await hit(clickUrl(email, 'https://acme.example/b', 1), SCANNER)).status).toBe(302);
    await tracking.buffer.flush();
    const res = await api.get(`/emails/${email.emailId}`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('delivered');
    expect(res.body.lastEvent).toBe('email.clicked');
    const byAddress = new Map((res.body.recipients as { email: string; opens: number; clicks: number; firstOpenedAt: string | null }[]).map((r) => [r.email, r]));
    expect(byAddress.get('r0@example.test')).toMatchObject({ opens: 2, clicks: 1 });
    expect(Date.parse(byAddress.get('r0@example.test')?.firstOpenedAt as string)).toBeGreaterThanOrEqual(opened - 5);
    expect(byAddress.get('r1@example.test')).toMatchObject({ opens: 0, clicks: 0, firstOpenedAt: null });
    const clicks = await api.get(`/emails/${email.emailId}/clicks`);
    expect(clicks.body.data.map((c: Record<string, unknown>) => [c.link, c.clicks, c.uniqueClicks, c.botClicks])).toEqual([
      ['https://acme.example/a', 1, 1, 1],
      ['https://acme.example/b', 0, 0, 1],
    ]);
    expect(clicks.body.data[1].firstClickedAt).toBeNull();
  });

  test('when 20,000 distinct valid tokens are fetched (twice the verified-token cache) and 1,000 of the first again, then each is answered from its own token and recorded once per answer', async () => {
    // Twice the cache (10,000, in two generations of 5,000) is enough: every token of the first
    // half is pushed out before the 1,000 are fetched again, so they are verified anew. (Five
    // times made the same point in 2.5 times as many requests.) Emails as before: 50 recipients
    // of 100 tokens each.
    const emails = await newEmails(4, 50);
    const targets = emails.flatMap((s) =>
      s.recipients.flatMap((_, i) => [
        { url: openUrl(s, i), location: undefined as string | undefined },
        ...Array.from({ length: 99 }, (_, l) => {
          const link = `https://acme.example/${s.emailId}/${i}/${l}`;
          return { url: clickUrl(s, link, i), location: link as string | undefined };
        }),
      ]),
    );
    expect(new Set(targets.map((t) => t.url)).size).toBe(20_000);
    const all = [...targets, ...targets.slice(0, 1_000)];
    let wrong = 0;
    for (let from = 0; from < all.length; from += 200) {
      const answers = await Promise.all(all.slice(from, from + 200).map(async (t) => [t, await hit(t.url)] as const));
      for (const [t, a] of answers) if (a.status !== (t.location ? 302 : 200) || a.location !== t.location) wrong++;
    }
    expect(wrong).toBe(0);
    expect(tracking.buffer.size).toBe(21_000);
    await tracking.buffer.flush();
    const { rows } = await pool.query<{ n: number }>({
      text: `SELECT count(*)::int AS n FROM email_events WHERE email_id = ANY($1::text[]) AND type IN ('email.opened', 'email.clicked')`,
      values: [emails.map((s) => s.emailId)],
    });
    expect(rows[0]?.n).toBe(21_000);
  }, 120_000);
});
