import { createTestDatabase, type TestDatabase } from '../support/databases';
import { freePort } from '../support/free-port';
import { type ServiceName, type ServiceProcess, startAllServices } from '../support/service-process';
import { until } from '../support/until';
import { PrivateRedis } from './private-servers';

// What each of the five services logs while its Redis (a private one, with a password) is
// killed and then comes back: JSON only, one line per connection each way, never one per
// reconnect attempt; frozen, one line each way too. Then, with Redis killed again, each still
// stops at once on SIGTERM.

type Name = ServiceName;
const PASSWORD = 'redisS3cretPW';
const OUTAGE_MS = 5_000;
// Lines one service may write in those 5 s: one per Redis connection it holds (the sender, the
// MX and the dispatcher hold up to five with BullMQ's blocking ones) and a few for work that
// failed meanwhile. Before the fix each wrote about 50 a second.
const MAX_LINES_PER_OUTAGE = 12;

let database: TestDatabase;
let redis: PrivateRedis;
let services = new Map<Name, ServiceProcess>();

interface LogLine {
  msg?: string;
  connection?: string;
  redis?: string;
  code?: string;
}

const parse = (line: string): LogLine | null => {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as LogLine) : null;
  } catch {
    return null;
  }
};

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase('redis_outage_logs'), PrivateRedis.create()]);
  await redis.start(false, { password: PASSWORD });
  const [api, tracking, smtp, senderOps, inboundOps, dispatcherOps] = await Promise.all(Array.from({ length: 6 }, () => freePort()));
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: database.url,
    REDIS_URL: redis.urlWithPassword(PASSWORD),
    QUEUE_PREFIX: 'outage-logs',
    SECRET_KEY: 'outage-logs-secret-key-that-is-long-enough-0123456789',
    API_PORT: String(api),
    TRACKING_PORT: String(tracking),
    SMTP_PORT: String(smtp),
  };
  services = await startAllServices(env, { sender: senderOps, 'inbound-smtp': inboundOps, 'webhook-dispatcher': dispatcherOps });
}, 240_000);

afterAll(async () => {
  await Promise.all([...services.values()].map((s) => s.stop()));
  await redis?.remove();
  await database?.drop();
}, 60_000);

test('when Redis is killed, then each service writes only JSON lines, one "lost" per connection with the redacted URL and the error code; when it is back, one "restored" per connection', async () => {
  const before = new Map([...services].map(([name, s]) => [name, s.output.length]));
  await redis.kill();
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
  const outage = new Map([...services].map(([name, s]) => [name, s.output.slice(before.get(name))]));

  const lostBy = new Map<Name, string[]>();
  for (const [name, lines] of outage) {
    expect({ name, notJson: lines.filter((line) => parse(line) === null) }).toEqual({ name, notJson: [] });
    expect({ name, tooMany: lines.length > MAX_LINES_PER_OUTAGE ? lines : [] }).toEqual({ name, tooMany: [] });
    const lost = lines.map(parse).filter((l): l is LogLine => l?.msg?.startsWith('redis connection lost') === true);
    // Every connection of the service noticed, each once.
    expect(lost.length).toBeGreaterThan(0);
    const connections = lost.map((l) => l.connection ?? '');
    expect(new Set(connections).size).toBe(connections.length);
    for (const line of lost) {
      expect(line.redis).toBe(redis.url.replace('redis://', 'redis://***@'));
      // Refused for a connection that reconnects first; reset for one whose socket held unread
      // data (a blocking command) when Redis died.
      expect(['ECONNREFUSED', 'ECONNRESET']).toContain(line.code);
    }
    expect(lines.join('\n')).not.toContain(PASSWORD);
    lostBy.set(name, connections.sort());
  }

  const back = new Map([...services].map(([name, s]) => [name, s.output.length]));
  await redis.start(false, { password: PASSWORD });
  const restored = (name: Name) =>
    services
      .get(name)!
      .output.slice(back.get(name))
      .map(parse)
      .filter((l): l is LogLine => l?.msg === 'redis connection restored')
      .map((l) => l.connection ?? '')
      .sort();
  await until(async () => [...lostBy].every(([name, lost]) => restored(name).length >= lost.length), 20_000, 'every connection restored', 200);
  // A moment longer, so a second "restored" for one connection would have been written too.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  for (const [name, lost] of lostBy) {
    expect({ name, restored: restored(name) }).toEqual({ name, restored: lost });
    const lines = services.get(name)!.output.slice(back.get(name));
    expect({ name, notJson: lines.filter((line) => parse(line) === null) }).toEqual({ name, notJson: [] });
  }
}, 60_000);

test('when Redis is frozen (connected, never answering), then each service says so once, and once when it answers again', async () => {
  const lines = (name: Name, from: number) => services.get(name)!.output.slice(from).map(parse);
  const before = new Map([...services].map(([name, s]) => [name, s.output.length]));
  redis.freeze();
  try {
    await until(async () => [...services.keys()].every((name) => lines(name, before.get(name)!).some((l) => l?.msg?.startsWith('redis not answering') === true)), 20_000, 'every service noticed', 200);
  } finally {
    redis.thaw();
  }
  await until(async () => [...services.keys()].every((name) => lines(name, before.get(name)!).some((l) => l?.msg === 'redis answering again')), 20_000, 'every service noticed the thaw', 200);
  for (const name of services.keys()) {
    const said = lines(name, before.get(name)!).filter((l) => l?.msg?.startsWith('redis not answering') === true || l?.msg === 'redis answering again');
    expect({ name, said: said.map((l) => [l?.msg?.split(':')[0], l?.connection, l?.redis]) }).toEqual({
      name,
      said: [
        ['redis not answering', 'requests', redis.url.replace('redis://', 'redis://***@')],
        ['redis answering again', 'requests', redis.url.replace('redis://', 'redis://***@')],
      ],
    });
  }
}, 60_000);

test('when Redis is down, then SIGTERM stops each service within seconds, exit code 0 (BullMQ\'s close waits for a Redis that never answers; the workers had held the sender and the dispatcher until Kubernetes killed them)', async () => {
  await redis.kill();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const started = Date.now();
  const stopped = await Promise.all(
    [...services].map(async ([name, service]) => {
      service.kill('SIGTERM');
      const code = await Promise.race([service.waitForExit(), new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
      return { name, code, withinSeconds: Date.now() - started < 20_000 };
    }),
  );
  expect(stopped).toEqual([...services.keys()].map((name) => ({ name, code: 0, withinSeconds: true })));
  const sender = services.get('sender')!.output.map(parse);
  expect(sender.some((l) => l?.msg?.startsWith('redis did not let the workers close') === true)).toBe(true);
}, 60_000);
