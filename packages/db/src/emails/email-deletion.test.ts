import { newId } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { appendEvents } from '../events';
import { createPool, type Pool } from '../pool';
import { insertEmails } from './insert-emails';
import { recordEngagement } from './record-engagement';

// email_events has no foreign key to emails (its per-row check was a fifth of an event's cost in
// PostgreSQL); the trigger email_events_follow_emails keeps what its ON DELETE CASCADE did.

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase('deletion');
  pool = createPool(db.url, 4);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

async function newProject(): Promise<string> {
  const id = newId('project');
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [id, 'Deletion'] });
  return id;
}

/** An email to one recipient, stored as the gateway stores it, with two events on its timeline. */
async function newEmailWithEvents(projectId: string): Promise<{ id: string; recipientId: string }> {
  const id = newId('email');
  const recipientId = newId('recipient');
  await insertEmails(pool, [
    {
      id, projectId, from: 'a@acme.test', fromAddress: 'a@acme.test', to: ['r@example.test'], cc: [], bcc: [], replyTo: [], subject: 'Hi', html: null, text: 'Hi',
      headers: {}, tags: [], scheduledAt: null, trackOpens: true, trackClicks: true, messageId: `<${id}@acme.test>`, status: 'queued',
      nextAttemptAt: new Date(), recipients: [{ id: recipientId, address: 'r@example.test', kind: 'to' }], attachments: [],
    },
  ]);
  const hit = { kind: 'open' as const, emailId: id, recipientId, ipAddress: '192.0.2.1', userAgent: 'Mail', isBot: false, at: new Date() };
  await recordEngagement(pool, [hit, { ...hit }]);
  return { id, recipientId };
}

async function eventsOf(emailId: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>({ text: 'SELECT count(*) AS n FROM email_events WHERE email_id = $1', values: [emailId] });
  return Number(rows[0]?.n);
}

describe('deleting an email', () => {
  test('when emails are deleted, then their events are deleted with them and other emails keep theirs', async () => {
    const projectId = await newProject();
    const [gone, alsoGone, kept] = [await newEmailWithEvents(projectId), await newEmailWithEvents(projectId), await newEmailWithEvents(projectId)];
    expect(await eventsOf(gone.id)).toBe(2);

    await pool.query({ text: 'DELETE FROM emails WHERE id = ANY($1::text[])', values: [[gone.id, alsoGone.id]] });

    expect([await eventsOf(gone.id), await eventsOf(alsoGone.id), await eventsOf(kept.id)]).toEqual([0, 0, 2]);
  });

  test('when a project is deleted, then the events of its emails go with them', async () => {
    const projectId = await newProject();
    const email = await newEmailWithEvents(projectId);
    const other = await newEmailWithEvents(await newProject());

    await pool.query({ text: 'DELETE FROM projects WHERE id = $1', values: [projectId] });

    expect([await eventsOf(email.id), await eventsOf(other.id)]).toEqual([0, 2]);
  });

  test('when an email is deleted while a producer holding its row lock appends events, then the deletion waits and removes those too', async () => {
    const email = await newEmailWithEvents(await newProject());
    const producer = await pool.connect();
    try {
      await producer.query('BEGIN');
      // As recordEngagement and recordOutcomes do: the email's row locked, then the events appended.
      await producer.query({ text: 'SELECT id FROM emails WHERE id = $1 FOR UPDATE', values: [email.id] });
      const data = { email_id: email.id, recipient: 'r@example.test' };
      await appendEvents(producer, [{ projectId: 'proj_x', subject: { kind: 'email', emailId: email.id, recipient: 'r@example.test' }, type: 'email.opened', data }]);
      const deletion = pool.query({ text: 'DELETE FROM emails WHERE id = $1', values: [email.id] });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await producer.query('COMMIT');
      await deletion;
    } finally {
      producer.release();
    }
    expect(await eventsOf(email.id)).toBe(0);
  });
});
