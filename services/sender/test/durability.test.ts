import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { SMTPServer } from 'smtp-server';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { createKey, signUp, startTestGateway, testEnv, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { ServiceProcess } from '../../../test/support/service-process';
import { until } from '../../../test/support/until';

/** An SMTP server that accepts everything, keeps only the Message-IDs, and can answer slowly. */
class CountingSink {
  readonly messageIds: string[] = [];
  private server!: SMTPServer;
  port = 0;
  constructor(private readonly delayMs = 0) {}

  async start() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      size: 100 * 1024 * 1024,
      onData: (stream, _session, callback) => {
        let head = '';
        stream.on('data', (chunk: Buffer) => {
          if (head.length < 4096) head += chunk.toString('utf8', 0, Math.min(chunk.length, 4096));
        });
        stream.on('end', () => {
          const id = /Message-ID: <([^>]+)>/i.exec(head)?.[1];
          setTimeout(() => {
            if (id) this.messageIds.push(id);
            callback();
          }, this.delayMs);
        });
      },
    });
    // A sender killed mid-transaction resets its connections; that is the point of the test.
    this.server.on('error', () => undefined);
    this.server.listen(0, '127.0.0.1');
    await once(this.server.server, 'listening');
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  stop() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const valid = (i: number) => ({ from: 'Acme <hello@acme.test>', to: `user${i}@example.test`, subject: `Message ${i}`, text: 'Hello' });

describe('the sender as a process', () => {
  let database: TestDatabase;
  let sink: CountingSink;
  let t: TestGateway;
  let api: ApiClient;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase('durability');
    sink = await new CountingSink(20).start();
    env = testEnv(database, {
      LOG_LEVEL: 'info',
      OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      SENDER_CONCURRENCY: '4',
      LEASE_SECONDS: '2',
      RECONCILE_INTERVAL_SECONDS: '1',
      SMTP_RETRY_SCHEDULE: '1,1',
    });
    t = await startTestGateway({ database, env: { ...env, LOG_LEVEL: 'silent' } });
    const owner = await signUp(t.api);
    api = t.api.as({ token: (await createKey(owner.as)).token });
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
    await database.drop();
  });

  const db = () => t.gateway.ctx.db;
  const accept = async (count: number, offset: number) => {
    const ids: string[] = [];
    for (let start = 0; start < count; start += 100) {
      const batch = Array.from({ length: Math.min(100, count - start) }, (_, i) => valid(offset + start + i));
      const res = await api.post('/emails/batch', batch);
      expect(res.status).toBe(200);
      ids.push(...res.body.data.map((d: { id: string }) => d.id));
    }
    return ids;
  };
  const delivered = (ids: string[]) => db().email.count({ where: { id: { in: ids }, status: 'delivered' } });

  test('when the sender is killed with SIGKILL mid-batch, then after a restart every email is delivered and none is lost', async () => {
    const ids = await accept(200, 0);
    const first = await ServiceProcess.start('sender', env, 'sender started');
    await until(async () => sink.messageIds.length >= 20, 20_000, 'the first deliveries');
    first.kill('SIGKILL');
    await first.waitForExit();
    const doneBeforeKill = await delivered(ids);
    expect(doneBeforeKill).toBeLessThan(200);
    expect(await db().email.count({ where: { id: { in: ids }, leaseOwner: { not: null } } })).toBeGreaterThan(0);

    const second = await ServiceProcess.start('sender', env, 'sender started');
    try {
      await until(async () => (await delivered(ids)) === 200, 60_000, 'all 200 emails to be delivered');
    } finally {
      await second.stop();
    }
    const seen = new Set(sink.messageIds);
    for (const id of ids) expect(seen.has(`${id}@acme.test`)).toBe(true);
    expect(await db().email.count({ where: { id: { in: ids }, leaseOwner: { not: null } } })).toBe(0);
  }, 120_000);

  test('when the sender gets SIGTERM while working, then it finishes its jobs in hand and exits 0', async () => {
    const ids = await accept(60, 1000);
    const sender = await ServiceProcess.start('sender', env, 'sender started');
    await until(async () => (await delivered(ids)) >= 5, 20_000, 'the first deliveries');
    sender.kill('SIGTERM');
    expect(await sender.waitForExit()).toBe(0);
    // Nothing was left claimed: every job it had taken was finished and given back.
    expect(await db().email.count({ where: { id: { in: ids }, leaseOwner: { not: null } } })).toBe(0);
    const restarted = await ServiceProcess.start('sender', env, 'sender started');
    try {
      await until(async () => (await delivered(ids)) === 60, 30_000, 'all 60 emails to be delivered');
    } finally {
      await restarted.stop();
    }
  }, 90_000);

  test('when Redis is emptied after emails were accepted, then the reconciler recovers them', async () => {
    const ids = await accept(30, 2000);
    const redis = new Redis(env.REDIS_URL!);
    try {
      const keys = await redis.keys(`${env.QUEUE_PREFIX}:*`);
      expect(keys.length).toBeGreaterThan(0);
      await redis.del(...keys);
      expect(await redis.keys(`${env.QUEUE_PREFIX}:*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
    const sender = await ServiceProcess.start('sender', env, 'sender started');
    try {
      await until(async () => (await delivered(ids)) === 30, 30_000, 'the reconciler to recover all 30 emails');
      expect(sender.output.some((line) => line.includes('reconciler re-enqueued due emails'))).toBe(true);
    } finally {
      await sender.stop();
    }
  }, 60_000);

  test('when a 20 MB message goes to 50 recipients, then the sender holds it once, not 50 times', async () => {
    const attachment = Buffer.alloc(20 * 1024 * 1024, 7).toString('base64');
    const to = Array.from({ length: 50 }, (_, i) => `big${i}@example.test`);
    const res = await api.post('/emails', { ...valid(3000), to, attachments: [{ filename: 'big.bin', content: attachment }] });
    expect(res.status).toBe(200);
    const before = sink.messageIds.length;
    const sender = await ServiceProcess.start('sender', env, 'sender started');
    try {
      const startRss = sender.peakRssBytes();
      await until(async () => (await db().email.findUniqueOrThrow({ where: { id: res.body.id } })).status === 'delivered', 60_000, 'the big email');
      const growth = sender.peakRssBytes() - startRss;
      // 50 copies of the ~27 MB encoded message would be 1.35 GB; one copy plus transport buffers is far less.
      expect(growth).toBeLessThan(400 * 1024 * 1024);
      expect(sink.messageIds.length - before).toBe(50);
    } finally {
      await sender.stop();
    }
  }, 90_000);
});
