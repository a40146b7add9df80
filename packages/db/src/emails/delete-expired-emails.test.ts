import { newId, newIdAt } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { appendEvents } from '../events';
import { createPool, inTransaction, type Pool } from '../pool';
import { deleteExpiredEmails } from './delete-expired-emails';
import { insertEmails } from './insert-emails';

const DAY = 86_400_000;
const RETENTION_DAYS = 30;

let db: TestDatabase;
let pool: Pool;
let projectId: string;

beforeAll(async () => {
  db = await createTestDatabase('emailretention');
  pool = createPool(db.url, 4);
  projectId = newId('project');
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Retention'] });
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

/**
 * An email made `ageDays` ago, as the gateway stores it (a recipient and an attachment), with
 * `email.sent` and `email.delivered` that long ago and nothing left to do unless `nextAttemptAt`.
 */
async function email(ageDays: number, options: { nextAttemptAt?: Date } = {}): Promise<string> {
  const at = Date.now() - ageDays * DAY;
  const id = newIdAt('email', at);
  await inTransaction(pool, async (client) => {
    await insertEmails(client, [
      {
        id, projectId, from: 'a@acme.test', fromAddress: 'a@acme.test', to: ['r@example.test'], cc: [], bcc: [], replyTo: [], subject: 'Hi', html: null,
        text: 'Hi', headers: {}, tags: [], scheduledAt: null, trackOpens: false, trackClicks: false, messageId: `<${id}@acme.test>`, status: 'queued',
        nextAttemptAt: new Date(), recipients: [{ id: newId('recipient'), address: 'r@example.test', kind: 'to' }],
        attachments: [{ id: newId('attachment'), filename: 'a.txt', contentType: 'text/plain', contentId: null, content: Buffer.from('hello') }],
      },
    ]);
    await client.query({ text: `UPDATE emails SET status = 'delivered', next_attempt_at = $2, created_at = $3 WHERE id = $1`, values: [id, options.nextAttemptAt ?? null, new Date(at)] });
    const subject = { kind: 'email' as const, emailId: id, recipient: 'r@example.test' };
    await appendEvents(client, [
      { projectId, subject, type: 'email.sent', data: { email_id: id }, createdAt: new Date(at) },
      { projectId, subject, type: 'email.delivered', data: { email_id: id }, createdAt: new Date(at + 1000) },
    ]);
  });
  return id;
}

async function remaining(ids: string[]): Promise<{ emails: string[]; recipients: number; attachments: number; events: number }> {
  const count = async (table: string) =>
    Number((await pool.query<{ n: string }>({ text: `SELECT count(*) AS n FROM ${table} WHERE email_id = ANY($1::text[])`, values: [ids] })).rows[0]?.n);
  const { rows } = await pool.query<{ id: string }>({ text: 'SELECT id FROM emails WHERE id = ANY($1::text[]) ORDER BY id', values: [ids] });
  return { emails: rows.map((r) => r.id), recipients: await count('email_recipients'), attachments: await count('email_attachments'), events: await count('email_events') };
}

describe('sent emails past retention', () => {
  test('when an email is older than the retention and finished, then it goes with its recipients, attachments and events; newer, still scheduled or recently active ones stay', async () => {
    const expired = await email(40);
    const recent = await email(10);
    const scheduled = await email(40, { nextAttemptAt: new Date(Date.now() + 5 * DAY) });
    const lateComplaint = await email(40);
    await inTransaction(pool, (client) =>
      appendEvents(client, [
        { projectId, subject: { kind: 'email', emailId: lateComplaint, recipient: 'r@example.test' }, type: 'email.complained', data: { email_id: lateComplaint } },
      ]),
    );

    expect(await deleteExpiredEmails(pool, { olderThanDays: RETENTION_DAYS })).toBe(1);

    expect(await remaining([expired])).toEqual({ emails: [], recipients: 0, attachments: 0, events: 0 });
    expect((await remaining([recent, scheduled, lateComplaint])).emails).toEqual([recent, scheduled, lateComplaint].sort());
    expect((await remaining([recent, scheduled, lateComplaint])).events).toBe(7);
  });

  test('when an expired email\'s event still has a pending webhook delivery, then the delivery is stopped with it, and other deliveries are untouched', async () => {
    const expired = await email(40);
    const kept = await email(5);
    const webhookId = newId('webhook');
    await pool.query({
      text: `INSERT INTO webhooks (id, project_id, url, events, secret_ciphertext, updated_at) VALUES ($1, $2, 'https://hooks.example.test/', '{email.sent}', 'x', now())`,
      values: [webhookId, projectId],
    });
    await pool.query({
      text: `INSERT INTO webhook_deliveries (event_id, webhook_id, project_id, state, next_attempt_at)
             SELECT id, $2, project_id, 'pending', now() + interval '1 hour' FROM email_events WHERE email_id = ANY($1::text[]) AND type = 'email.sent'`,
      values: [[expired, kept], webhookId],
    });

    expect(await deleteExpiredEmails(pool, { olderThanDays: RETENTION_DAYS })).toBe(1);

    const { rows } = await pool.query<{ state: string; next_attempt_at: Date | null; kept: boolean }>({
      text: `SELECT d.state, d.next_attempt_at, e.id IS NOT NULL AS kept FROM webhook_deliveries d LEFT JOIN email_events e ON e.id = d.event_id
              WHERE d.webhook_id = $1 ORDER BY kept`,
      values: [webhookId],
    });
    expect(rows.map((r) => [r.kept, r.state, r.next_attempt_at === null])).toEqual([
      [false, 'failed', true],
      [true, 'pending', false],
    ]);
  });

  test('when a producer holds an expired email locked, then it is skipped and deleted by a later run; batches walk past the emails that stay', async () => {
    const emails = [await email(50), await email(49, { nextAttemptAt: new Date(Date.now() + DAY) }), await email(48), await email(47), await email(46)];
    const [, scheduled, third] = emails as [string, string, string];
    const producer = await pool.connect();
    try {
      await producer.query('BEGIN');
      await producer.query({ text: 'SELECT id FROM emails WHERE id = $1 FOR UPDATE', values: [third] });
      // Two emails a statement: the scheduled one and the locked one sit inside the batches.
      expect(await deleteExpiredEmails(pool, { olderThanDays: RETENTION_DAYS, batchSize: 2 })).toBe(3);
      expect((await remaining(emails)).emails).toEqual([scheduled, third]);
      await producer.query('COMMIT');
    } finally {
      producer.release();
    }
    expect(await deleteExpiredEmails(pool, { olderThanDays: RETENTION_DAYS, batchSize: 2 })).toBe(1);
    expect((await remaining(emails)).emails).toEqual([scheduled]);
  });
});
