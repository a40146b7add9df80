import { request } from 'node:http';
import { deriveKey, newId, TrackingTokens } from '@mailroom/core';
import { createPool, insertEmails, type Pool } from '@mailroom/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { TEST_SECRET_KEY, testEnv } from '../../../test/support/gateway';
import { ServiceProcess } from '../../../test/support/service-process';

const tokens = new TrackingTokens(deriveKey(TEST_SECRET_KEY, 'tracking'));

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the tracking process', () => {
  let database: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    database = await createTestDatabase('trksigterm');
    pool = createPool(database.url, 2);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  test('when it gets SIGTERM with events still buffered, then it writes every one before exiting', async () => {
    const projectId = newId('project');
    await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, 'Sigterm'] });
    const emailId = newId('email');
    const recipientId = newId('recipient');
    await insertEmails(pool, [
      {
        id: emailId, projectId, from: 'a@acme.test', fromAddress: 'a@acme.test', to: ['r@example.test'], cc: [], bcc: [], replyTo: [], subject: 'S',
        html: '<p>x</p>', text: null, headers: {}, tags: [], scheduledAt: null, trackOpens: true, trackClicks: true, messageId: `${emailId}@acme.test`,
        status: 'queued', nextAttemptAt: new Date(Date.now() + 3_600_000), recipients: [{ id: recipientId, address: 'r@example.test', kind: 'to' }], attachments: [],
      },
    ]);
    const service = await ServiceProcess.start('tracking', testEnv(database, { TRACKING_PORT: '0', LOG_LEVEL: 'info' }), 'tracking started');
    const started = service.output.find((line) => line.includes('tracking started')) as string;
    const port = (JSON.parse(started) as { port: number }).port;
    const url = `http://127.0.0.1:${port}/o/${tokens.sign({ kind: 'open', emailId, recipientId })}`;
    let sent = 0;
    let buffered = 0;
    // Bursts until one is seen waiting in the buffer (a flush runs every second), then SIGTERM at once.
    for (let round = 0; round < 10 && buffered === 0; round++) {
      const statuses = await Promise.all(Array.from({ length: 50 }, () => get(url)));
      expect(statuses.every((s) => s === 200)).toBe(true);
      sent += statuses.length;
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
      buffered = Number(/^mailroom_tracking_events_buffered (\d+)$/m.exec(metrics)?.[1] ?? 0);
      if (buffered > 0) service.kill('SIGTERM');
    }
    expect(buffered).toBeGreaterThan(0);
    expect(await service.waitForExit()).toBe(0);
    const { rows } = await pool.query({ text: "SELECT count(*)::int AS n FROM email_events WHERE email_id = $1 AND type = 'email.opened'", values: [emailId] });
    expect(rows[0].n).toBe(sent);
  });
});
