import { newId } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { createPool, type Pool } from '../pool';
import { insertEmails } from './insert-emails';
import { type EngagementHit, recordEngagement } from './record-engagement';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase('engretry');
  pool = createPool(db.url, 4);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

async function newEmail(): Promise<{ emailId: string; recipientId: string }> {
  const projectId = newId('project');
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Retry'] });
  const emailId = newId('email');
  const recipientId = newId('recipient');
  await insertEmails(pool, [
    {
      id: emailId, projectId, from: 'a@acme.test', fromAddress: 'a@acme.test', to: ['r@example.test'], cc: [], bcc: [], replyTo: [], subject: 'Hi', html: null, text: 'Hi',
      headers: {}, tags: [], scheduledAt: null, trackOpens: true, trackClicks: true, messageId: `<${emailId}@acme.test>`, status: 'queued',
      nextAttemptAt: new Date(), recipients: [{ id: recipientId, address: 'r@example.test', kind: 'to' }], attachments: [],
    },
  ]);
  return { emailId, recipientId };
}

/** A pool whose transactions commit, after which the connection is lost before COMMIT's reply is read: the caller sees an error. */
function losingCommitReplies(real: Pool): Pool {
  return {
    connect: async () => {
      const client = await real.connect();
      return new Proxy(client, {
        get(target, prop, receiver) {
          if (prop !== 'query') return Reflect.get(target, prop, receiver) as unknown;
          const query = (target.query as (...a: unknown[]) => unknown).bind(target);
          return (...args: unknown[]) =>
            args[0] === 'COMMIT'
              ? (query('COMMIT') as Promise<unknown>).then(() => Promise.reject(new Error('Connection terminated unexpectedly')))
              : query(...args);
        },
      });
    },
  } as unknown as Pool;
}

const count = async (emailId: string) =>
  (await pool.query<{ events: number; opens: number }>({
    text: `SELECT (SELECT count(*)::int FROM email_events WHERE email_id = $1 AND type = 'email.opened') AS events,
                  (SELECT opens FROM email_recipients WHERE email_id = $1) AS opens`,
    values: [emailId],
  })).rows[0];

describe('recordEngagement retried after a commit whose reply was lost', () => {
  test('when a batch committed but its caller saw an error, then writing the same hits again as a retry appends nothing more and counts nothing twice', async () => {
    const { emailId, recipientId } = await newEmail();
    const hits: EngagementHit[] = Array.from({ length: 5 }, () => ({
      kind: 'open', emailId, recipientId, ipAddress: '192.0.2.1', userAgent: 'Mail', isBot: false, at: new Date(), eventId: newId('event'),
    }));
    await expect(recordEngagement(losingCommitReplies(pool), hits)).rejects.toThrow('Connection terminated');
    expect(await count(emailId)).toEqual({ events: 5, opens: 5 });

    const more: EngagementHit = { ...(hits[0] as EngagementHit), eventId: newId('event') };
    expect(await recordEngagement(pool, [...hits, more], { retry: true })).toEqual({ appended: 1, dropped: 0 });
    expect(await count(emailId)).toEqual({ events: 6, opens: 6 });
  });

  test('when a retried batch had not committed, then every hit of it is appended with the event id it was given', async () => {
    const { emailId, recipientId } = await newEmail();
    const hits: EngagementHit[] = Array.from({ length: 3 }, () => ({
      kind: 'open', emailId, recipientId, ipAddress: '192.0.2.1', userAgent: 'Mail', isBot: false, at: new Date(), eventId: newId('event'),
    }));
    expect(await recordEngagement(pool, hits, { retry: true })).toEqual({ appended: 3, dropped: 0 });
    const { rows } = await pool.query<{ id: string }>({ text: 'SELECT id FROM email_events WHERE email_id = $1 ORDER BY id', values: [emailId] });
    expect(rows.map((r) => r.id)).toEqual(hits.map((h) => h.eventId).sort());
    expect(await count(emailId)).toEqual({ events: 3, opens: 3 });
  });
});
