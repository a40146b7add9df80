import { newId } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { createPool, type Pool } from '../pool';
import { insertReceivedEmails } from './insert-received-emails';

// received_emails has no foreign key to projects (its per-row check was about a fifth of the
// MX's insert in PostgreSQL); the trigger received_emails_follow_projects keeps what its
// ON DELETE CASCADE did.

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase('received_deletion');
  pool = createPool(db.url, 2);
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

/** A message stored as the MX stores it, one copy per project given, each copy with an attachment row. */
async function receive(projectIds: (string | null)[]): Promise<string[]> {
  const copies = projectIds.map((projectId) => ({
    id: newId('receivedEmail'),
    projectId,
    kind: projectId === null ? ('feedback' as const) : ('route' as const),
    routeIds: [],
    feedbackRecipientId: null,
    rcptTo: ['support@acme.test'],
  }));
  await insertReceivedEmails(pool, [{ mailFrom: 'a@example.test', remoteAddress: '192.0.2.1', helo: 'mx.example.test', raw: Buffer.from('Subject: hi\r\n\r\nhi\r\n'), copies }]);
  for (const copy of copies) {
    await pool.query({
      text: `INSERT INTO received_attachments (id, received_email_id, position, content_type, size, content) VALUES ($1, $2, 0, 'text/plain', 2, '\\x6869')`,
      values: [newId('attachment'), copy.id],
    });
  }
  return copies.map((c) => c.id);
}

async function remaining(ids: string[]): Promise<{ emails: number; attachments: number }> {
  const { rows } = await pool.query<{ emails: string; attachments: string }>({
    text: `SELECT (SELECT count(*) FROM received_emails WHERE id = ANY($1::text[])) AS emails,
                  (SELECT count(*) FROM received_attachments WHERE received_email_id = ANY($1::text[])) AS attachments`,
    values: [ids],
  });
  return { emails: Number(rows[0]?.emails), attachments: Number(rows[0]?.attachments) };
}

describe('deleting a project', () => {
  test('when projects are deleted, then their received mail and its attachments go with them; other projects and feedback keep theirs', async () => {
    const [gone, alsoGone, kept] = [await newProject(), await newProject(), await newProject()];
    const shared = await receive([gone, kept]);
    const [alone] = await receive([alsoGone]);
    const [feedback] = await receive([null]);

    await pool.query({ text: 'DELETE FROM projects WHERE id = ANY($1::text[])', values: [[gone, alsoGone]] });

    expect(await remaining([shared[0] as string, alone as string])).toEqual({ emails: 0, attachments: 0 });
    expect(await remaining([shared[1] as string, feedback as string])).toEqual({ emails: 2, attachments: 2 });
  });

  test('when no project is deleted, then the trigger deletes nothing', async () => {
    const project = await newProject();
    const ids = await receive([project]);

    await pool.query({ text: 'DELETE FROM projects WHERE id = $1', values: ['proj_none'] });

    expect(await remaining(ids)).toEqual({ emails: 1, attachments: 1 });
  });
});
