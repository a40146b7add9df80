import { newId } from '@mailroom/core';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { insertEmails } from '../emails';
import { createPool, type Pool } from '../pool';
import { assignReceivedEmailProject } from './assign-project';
import { findSentEmailByMessageId, findSentEmailByRecipient } from './find-sent-email';

let db: TestDatabase;
let pool: Pool;
const projectId = newId('project');
const emailId = newId('email');
const recipients = [
  { id: newId('recipient'), address: 'ann@example.test', kind: 'to' as const },
  { id: newId('recipient'), address: 'bob@example.test', kind: 'cc' as const },
];

beforeAll(async () => {
  db = await createTestDatabase('feedbackdb');
  pool = createPool(db.url, 2);
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Feedback'] });
  await insertEmails(pool, [
    {
      id: emailId, projectId, from: 'Acme <a@acme.test>', fromAddress: 'a@acme.test', to: ['ann@example.test'], cc: ['bob@example.test'], bcc: [], replyTo: [],
      subject: 'Hi', html: null, text: 'Hi', headers: {}, tags: [{ name: 'k', value: 'v' }], scheduledAt: null, trackOpens: null, trackClicks: null,
      messageId: `${emailId}@acme.test`, status: 'queued', nextAttemptAt: new Date(), recipients, attachments: [],
    },
  ]);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

const expected = {
  email: { id: emailId, projectId, from: 'Acme <a@acme.test>', to: ['ann@example.test'], subject: 'Hi', tags: [{ name: 'k', value: 'v' }] },
  recipients: recipients.map(({ id, address }) => ({ id, address, attempts: 0 })).sort((a, b) => a.id.localeCompare(b.id)),
};

test('when a recipient id is known, then its email with every recipient; else null', async () => {
  expect(await findSentEmailByRecipient(pool, recipients[1]!.id)).toEqual(expected);
  expect(await findSentEmailByRecipient(pool, newId('recipient'))).toBeNull();
});

test('when a Message-ID is ours (brackets or not, case folded), then its email; another form or a different domain, then null', async () => {
  expect(await findSentEmailByMessageId(pool, `<${emailId}@acme.test>`)).toEqual(expected);
  expect(await findSentEmailByMessageId(pool, ` ${emailId.toLowerCase()}@ACME.test `)).toEqual(expected);
  expect(await findSentEmailByMessageId(pool, `<${emailId}@other.test>`)).toBeNull();
  expect(await findSentEmailByMessageId(pool, '<CAF3x1q@mail.example.com>')).toBeNull();
  expect(await findSentEmailByMessageId(pool, '<em_junk@acme.test>')).toBeNull();
  expect(await findSentEmailByMessageId(pool, '')).toBeNull();
});

test('when a feedback report without a project is assigned one, then it keeps it; a report with a project is left alone', async () => {
  const insert = async (project: string | null) => {
    const id = newId('receivedEmail');
    await pool.query({
      text: `INSERT INTO received_emails (id, project_id, kind, route_ids, mail_from, rcpt_to, raw, size) VALUES ($1, $2, 'feedback', '{}', '', '{fbl@b.test}', '\\x00', 1)`,
      values: [id, project],
    });
    return id;
  };
  const orphan = await insert(null);
  expect(await assignReceivedEmailProject(pool, orphan, projectId)).toBe(true);
  expect(await assignReceivedEmailProject(pool, orphan, newId('project'))).toBe(false);
  const owned = await insert(projectId);
  expect(await assignReceivedEmailProject(pool, owned, newId('project'))).toBe(false);
  const { rows } = await pool.query({ text: 'SELECT id, project_id FROM received_emails ORDER BY id', values: [] });
  expect(rows).toEqual([
    { id: orphan, project_id: projectId },
    { id: owned, project_id: projectId },
  ]);
});
