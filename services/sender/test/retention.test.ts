import { loadConfig, newId, newIdAt, openQueue, queues } from '@mailroom/core';
import { insertEmails } from '@mailroom/db';
import { startSendingStack, type SendingStack } from '../../../test/support/sending';

const DAY = 86_400_000;

describe("the sender's retention task", () => {
  let s: SendingStack;
  beforeAll(async () => {
    s = await startSendingStack('retention', {});
  });
  afterAll(() => s.close());

  test('when an email is past EMAIL_RETENTION_DAYS, then the hourly retention task deletes it and the API answers 404; a new one stays', async () => {
    const pool = s.t.gateway.ctx.pool;
    const old = newIdAt('email', Date.now() - 31 * DAY);
    await insertEmails(pool, [
      {
        id: old, projectId: s.projectId, from: 'hello@acme.test', fromAddress: 'hello@acme.test', to: ['r@example.test'], cc: [], bcc: [], replyTo: [],
        subject: 'Old', html: null, text: 'Old', headers: {}, tags: [], scheduledAt: null, trackOpens: false, trackClicks: false,
        messageId: `<${old}@acme.test>`, status: 'queued', nextAttemptAt: new Date(), recipients: [{ id: newId('recipient'), address: 'r@example.test', kind: 'to' }],
        attachments: [],
      },
    ]);
    await pool.query({ text: `UPDATE emails SET status = 'delivered', next_attempt_at = NULL WHERE id = $1`, values: [old] });
    const sent = await s.api.post('/emails', { from: 'hello@acme.test', to: 'delivered@sandbox.mailroom.test', subject: 'New', text: 'New' });
    expect(sent.status).toBe(200);
    expect((await s.api.get(`/emails/${old}`)).status).toBe(200);

    // Run now (the schedule's own run may come first: then this one finds nothing).
    await s.sender.deleteExpired();

    expect((await s.api.get(`/emails/${old}`)).status).toBe(404);
    expect((await s.api.get(`/emails/${sent.body.id}`)).status).toBe(200);
    // The task is on the sender's maintenance schedule, hourly.
    const config = loadConfig(s.env);
    const maintenance = openQueue(queues.senderMaintenance, { connection: s.t.gateway.ctx.redis, prefix: config.queuePrefix });
    try {
      const schedulers = await maintenance.queue.getJobSchedulers();
      expect(schedulers.find((j) => j.key === 'retention')).toMatchObject({ every: 3_600_000 });
    } finally {
      await maintenance.close();
    }
  });
});
