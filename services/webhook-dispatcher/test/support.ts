import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Writable } from 'node:stream';
import { createRedis, deriveKey, encryptSecret, EventQueue, newId, type Logger } from '@mailroom/core';
import { appendEvents, createPool, inTransaction, type Pool } from '@mailroom/db';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { TEST_SECRET_KEY, testEnv } from '../../../test/support/gateway';

/** One request a receiver got. */
export interface ReceivedRequest {
  /** Path and query, e.g. `/hook?recover`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How a receiver answers: a status (and headers, body), or `hang` (never answers). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/** A webhook receiver on loopback: records every request and answers as `answer` says. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  /** Requests being answered or hanging right now, and the most at once. */
  open = 0;
  maxOpen = 0;
  /** TCP connections accepted. */
  connections = 0;
  answer: (request: ReceivedRequest) => Answer = () => ({ status: 200, body: 'ok' });
  /** How long each answer waits (ms). */
  delayMs = 0;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly hanging = new Set<ServerResponse>();

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.requests.push(request);
        this.open++;
        this.maxOpen = Math.max(this.maxOpen, this.open);
        const answer = this.answer(request);
        if (answer === 'hang') {
          this.hanging.add(res);
          res.on('close', () => {
            this.hanging.delete(res);
            this.open--;
          });
          return;
        }
        setTimeout(() => {
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          res.end(answer.body ?? '', () => this.open--);
        }, this.delayMs);
      });
    });
    this.server.on('connection', (socket: Socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  /** Requests for one event (by webhook-id). */
  forEvent(eventId: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers['webhook-id'] === eventId);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export async function createProject(pool: Pool): Promise<string> {
  const id = newId('project');
  await pool.query({ text: `INSERT INTO projects (id, name, updated_at) VALUES ($1, 'Test', now())`, values: [id] });
  return id;
}

export async function createRoute(pool: Pool, projectId: string): Promise<string> {
  const id = newId('route');
  await pool.query({ text: `INSERT INTO routes (id, project_id, match) VALUES ($1, $2, $3)`, values: [id, projectId, `${id.toLowerCase()}@acme.test`] });
  return id;
}

export interface EndpointOptions {
  url: string;
  events: string[];
  routeId?: string;
  secret?: string;
  previousSecret?: string;
  enabled?: boolean;
  /** The SECRET_KEY of the processes that will read it; default the tests' own. */
  masterSecret?: string;
}

/** Inserts an endpoint as the gateway would, its secrets encrypted with the master secret's sub-key. */
export async function createEndpoint(pool: Pool, projectId: string, options: EndpointOptions): Promise<{ id: string; secret: string }> {
  const key = deriveKey(options.masterSecret ?? TEST_SECRET_KEY, 'encryption');
  const id = newId('webhook');
  const secret = options.secret ?? newSecret();
  await pool.query({
    text: `INSERT INTO webhooks (id, project_id, url, events, route_id, enabled, disabled_reason, secret_ciphertext,
                                 previous_secret_ciphertext, previous_secret_expires_at, subscribed_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $9::text IS NULL THEN NULL ELSE now() + interval '24 hours' END,
                   date_trunc('milliseconds', now()), now())`,
    values: [
      id,
      projectId,
      options.url,
      options.events,
      options.routeId ?? null,
      options.enabled ?? true,
      options.enabled === false ? 'manual' : null,
      encryptSecret(key, secret),
      options.previousSecret ? encryptSecret(key, options.previousSecret) : null,
    ],
  });
  return { id, secret };
}

/** Appends events as a producer would (one transaction); the caller notifies the events queue. */
export async function appendTestEvents(pool: Pool, projectId: string, events: { type: string; data?: object }[]): Promise<string[]> {
  return inTransaction(pool, (client) =>
    appendEvents(
      client,
      events.map((e) => ({
        projectId,
        subject: { kind: 'received_email' as const, receivedEmailId: newId('receivedEmail') },
        type: e.type as 'email.received',
        data: e.data ?? { email_id: 'em_test', subject: 'Hello' },
      })),
    ),
  );
}

/**
 * What a dispatcher test runs beside the dispatcher: a database of its own, the environment to
 * start a dispatcher with (in this process or as a child), and a Redis connection with the
 * events queue that wakes it. Receivers and the dispatcher are each test's own.
 */
export interface DispatcherTestBed {
  database: TestDatabase;
  pool: Pool;
  /** testEnv of the database with ALLOW_PRIVATE_NETWORKS on (receivers are on loopback), then the test's settings. */
  env: Record<string, string>;
  redis: Redis;
  eventQueue: EventQueue;
  /** Appends `count` events of `type` to the project's outbox, wakes the dispatcher, and gives their ids. */
  emit(projectId: string, type: string, count: number): Promise<string[]>;
  /** Starts a receiver of the test's own; every one started so is stopped at `close()`. */
  receiver(): Promise<Receiver>;
  close(): Promise<void>;
}

/**
 * Settings for a dispatcher run as a child process that a test kills or starves: its log lines
 * to read, and a short lease (max(LEASE_SECONDS, 2 × timeout + 5) = 7 s), timeout and reconcile
 * interval, so lost work comes back within the test.
 */
export const CHILD_PROCESS_SETTINGS = { LOG_LEVEL: 'info', LEASE_SECONDS: '2', WEBHOOK_TIMEOUT_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1' } as const;

/** The READY line a dispatcher child process logs when it has started. */
export const DISPATCHER_READY = 'webhook dispatcher started';

export async function openTestBed(label: string, settings: Record<string, string> = {}, poolUrlSuffix = ''): Promise<DispatcherTestBed> {
  const database = await createTestDatabase(label);
  const pool = createPool(`${database.url}${poolUrlSuffix}`, 4);
  const env = testEnv(database, { ALLOW_PRIVATE_NETWORKS: 'true', ...settings });
  const redis = createRedis('redis://127.0.0.1:6379', 'request');
  await redis.connect();
  const eventQueue = new EventQueue(redis, env.QUEUE_PREFIX as string);
  const receivers: Receiver[] = [];
  return {
    database,
    pool,
    env,
    redis,
    eventQueue,
    async emit(projectId, type, count) {
      const ids = await appendTestEvents(pool, projectId, Array.from({ length: count }, () => ({ type })));
      await eventQueue.notify();
      return ids;
    },
    async receiver() {
      const receiver = await new Receiver().start();
      receivers.push(receiver);
      return receiver;
    },
    async close() {
      await Promise.all(receivers.map((r) => r.stop()));
      await eventQueue.close();
      redis.disconnect();
      await pool.end();
      await database.drop();
    },
  };
}

/** A logger whose every line is kept, to check what was logged. */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

export { until } from '../../../test/support/until';
