import { newId, type SmtpReplyData } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { createPool, type Pool } from '../pool';
import type { EmailEventSubject } from './event-data';
import { insertEmails } from './insert-emails';
import { type EngagementHit, recordEngagement } from './record-engagement';
import { recordOutcomes, type RecipientAttempt } from './record-outcomes';

const OK: SmtpReplyData = { code: 250, enhanced_code: '2.0.0', message: 'OK' };

let db: TestDatabase;
let pool: Pool;
let projectId: string;

beforeAll(async () => {
  db = await createTestDatabase('engconc');
  pool = createPool(db.url, 8);
  projectId = newId('project');
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Concurrency'] });
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

interface Sent {
  email: EmailEventSubject;
  recipients: { id: string; address: string }[];
}

async function newEmails(count: number): Promise<Sent[]> {
  const sent: Sent[] = [];
  const rows = Array.from({ length: count }, () => {
    const id = newId('email');
    const to = ['a@example.test', 'b@example.test'];
    const recipients = to.map((address) => ({ id: newId('recipient'), address, kind: 'to' as const }));
    sent.push({ email: { id, projectId, from: 'a@acme.test', to, subject: 'Hi', tags: [] }, recipients });
    return {
      id, projectId, from: 'a@acme.test', fromAddress: 'a@acme.test', to, cc: [], bcc: [], replyTo: [], subject: 'Hi', html: '<p>Hi</p>', text: null,
      headers: {}, tags: [], scheduledAt: null, trackOpens: true, trackClicks: true, messageId: `<${id}@acme.test>`, status: 'queued' as const,
      nextAttemptAt: new Date(), recipients, attachments: [],
    };
  });
  await insertEmails(pool, rows);
  return sent;
}

const delivered = (sent: Sent, i: number): RecipientAttempt => ({
  email: sent.email,
  recipient: { ...(sent.recipients[i] as { id: string; address: string }), attempts: 0 },
  outcome: { kind: 'delivered', smtp: OK },
  startedAt: new Date(),
  endedAt: new Date(),
});
const open = (sent: Sent, i: number): EngagementHit => ({
  kind: 'open', emailId: sent.email.id, recipientId: (sent.recipients[i] as { id: string }).id, ipAddress: '198.51.100.7', userAgent: 'Mozilla/5.0 (iPhone)', isBot: false, at: new Date(),
});

describe('recordEngagement and recordOutcomes on the same emails at once', () => {
  test('when opens and deliveries of the same emails are written at once, 40 times over, in batches of several emails in opposite orders, then none deadlocks, every status is delivered and lastEvent is the newest event', async () => {
    let deadlocks = 0;
    for (let round = 0; round < 40; round++) {
      const emails = await newEmails(4);
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
