import type { Pool } from '@mailroom/db';
import { ServiceProcess } from '../../../test/support/service-process';
import { createEndpoint, createProject, CHILD_PROCESS_SETTINGS, type DispatcherTestBed, DISPATCHER_READY, openTestBed, Receiver, until } from './support';

// A job may fire this much before its row's due time (EARLY_SLACK_SECONDS of claimDeliveries), ms.
const EARLY_SLACK_MS = 2_000;

interface Attempt {
  event_id: string;
  attempt: number;
  success: boolean;
  created_at: Date;
  next_retry_at: Date | null;
}

describe('retries across a dispatcher restart', () => {
  let bed: DispatcherTestBed;
  let pool: Pool;
  let env: Record<string, string>;
  const receiver = new Receiver();
  let projectId: string;

  beforeAll(async () => {
    bed = await openTestBed('whresrestart', {
      ...CHILD_PROCESS_SETTINGS,
      // The first retry 8 s (±10 %) after the first attempt: far longer than a restart.
      WEBHOOK_RETRY_SCHEDULE: '8',
    });
    ({ pool, env } = bed);
    await receiver.start();
    projectId = await createProject(pool);
  });
  afterAll(async () => {
    await receiver.stop();
    await bed.close();
  });

  const attempts = async (webhookId: string) =>
    (await pool.query<Attempt>({ text: 'SELECT event_id, attempt, success, created_at, next_retry_at FROM webhook_attempts WHERE webhook_id = $1 ORDER BY event_id, attempt', values: [webhookId] }))
      .rows;

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    test(`when the dispatcher is stopped with ${signal} while retries wait, then a new one retries each at its time, not at once and not never`, async () => {
      const tag = signal.toLowerCase();
      // The first post of each event fails, the second succeeds.
      const seen = new Set<string>();
      receiver.answer = (r) => {
        if (!r.url.endsWith(`?${tag}`)) return { status: 200 };
        const id = r.headers['webhook-id'] as string;
        if (seen.has(id)) return { status: 200 };
        seen.add(id);
        return { status: 500 };
      };
      const { id } = await createEndpoint(pool, projectId, { url: `${receiver.url}?${tag}`, events: ['email.delivered'] });
      const first = await ServiceProcess.start('webhook-dispatcher', env, DISPATCHER_READY);
      const ids = await bed.emit(projectId, 'email.delivered', 20);
      await until(async () => (await attempts(id)).length === 20, 20_000, 'the 20 first attempts recorded');
      first.kill(signal);
      await first.waitForExit();
      const second = await ServiceProcess.start('webhook-dispatcher', env, DISPATCHER_READY);
      try {
        await until(async () => (await attempts(id)).filter((a) => a.success).length === 20, 40_000, 'the 20 retries');
      } finally {
        await second.stop();
      }
      const rows = await attempts(id);
      expect(rows).toHaveLength(40);
      for (const eventId of ids) {
        const [one, two] = rows.filter((r) => r.event_id === eventId);
        expect([one!.attempt, one!.success, two!.attempt, two!.success]).toEqual([1, false, 2, true]);
        // At its time: not before the retry was due.
        expect(two!.created_at.getTime()).toBeGreaterThanOrEqual(one!.next_retry_at!.getTime() - EARLY_SLACK_MS);
      }
    }, 90_000);
  }
});
