import { request } from 'node:http';
import { connect } from 'node:net';
import { deriveKey, loadConfig, newId, TrackingTokens } from '@mailroom/core';
import { createPool, insertEmails, type Pool } from '@mailroom/db';
import { type RunningSender, startSender } from '../../sender/src/start-sender';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { createKey, signUp, startTestGateway, TEST_SECRET_KEY, type TestGateway, testEnv } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { SmtpSink } from '../../../test/support/smtp-sink';
import { type RunningTracking, startTracking } from '../src';

/** Tokens signed as the sender signs them for the test deployment's SECRET_KEY. */
export const tokens = new TrackingTokens(deriveKey(TEST_SECRET_KEY, 'tracking'));

/** A browser's GET of a tracking URL: its status, the body read and dropped. */
export function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A queued email with opens and clicks tracked, to one recipient, in a project of its own. */
export async function insertTrackedEmail(pool: Pool, projectName: string): Promise<{ emailId: string; recipientId: string }> {
  const projectId = newId('project');
  await pool.query({ text: 'INSERT INTO projects (id, name, updated_at) VALUES ($1, $2, now())', values: [projectId, projectName] });
  const emailId = newId('email');
  const recipientId = newId('recipient');
  await insertEmails(pool, [
    {
      id: emailId, projectId, from: 'a@acme.test', fromAddress: 'a@acme.test', to: ['r@example.test'], cc: [], bcc: [], replyTo: [], subject: 'S',
      html: '<p>x</p>', text: null, headers: {}, tags: [], scheduledAt: null, trackOpens: true, trackClicks: true, messageId: `${emailId}@acme.test`,
      status: 'queued', nextAttemptAt: new Date(Date.now() + 3_600_000), recipients: [{ id: recipientId, address: 'r@example.test', kind: 'to' }], attachments: [],
    },
  ]);
  return { emailId, recipientId };
}

/**
 * Writes `raw` as it is on one connection to the service at `port` and reads the answer
 * (latin1) until the server closes the connection, or until `done` says the answers are in.
 */
export function exchange(port: number, raw: string | Buffer, done: (text: string) => boolean = () => false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (done(text)) socket.end();
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(raw);
  });
}

/** The status code of a raw HTTP/1.1 answer. */
export const statusOf = (response: string) => Number(response.slice(9, 12));

/** What a tracking test file runs against: a database of its own, a pool on it, and the service writing every 100 ms. */
export interface TrackingBed {
  database: TestDatabase;
  pool: Pool;
  tracking: RunningTracking;
}

/** Opens a TrackingBed before the file's tests and closes it after them; its fields are set once the tests run. */
export function useTrackingBed(label: string): TrackingBed {
  const bed = {} as TrackingBed;
  beforeAll(async () => {
    bed.database = await createTestDatabase(label);
    bed.pool = createPool(bed.database.url, 2);
    bed.tracking = await startTracking(loadConfig(testEnv(bed.database, { TRACKING_PORT: '0', TRACKING_MIN_CLICK_SECONDS: '0' })), {
      host: '127.0.0.1',
      flushIntervalMs: 100,
    });
  });
  afterAll(async () => {
    await bed.tracking.stop();
    await bed.pool.end();
    await bed.database.drop();
  });
  return bed;
}

/**
 * The path a tracked email takes in a test: its own database, an SMTP sink, the tracking service
 * (writing every 100 ms), the gateway and the sender pointed at it, and an owner's API key.
 */
export interface TrackedSending {
  database: TestDatabase;
  sink: SmtpSink;
  tracking: RunningTracking;
  gateway: TestGateway;
  sender: RunningSender;
  owner: Awaited<ReturnType<typeof signUp>>;
  api: ApiClient;
  /** The environment the gateway and sender were started with (TRACKING_BASE_URL included). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts a TrackedSending. Clicks may come right after delivery (`TRACKING_MIN_CLICK_SECONDS`
 * 0: the timing rule has its own tests); `env` adds to or overrides the settings.
 */
export async function startTrackedSending(label: string, env: Record<string, string> = {}): Promise<TrackedSending> {
  const database = await createTestDatabase(label);
  const sink = await new SmtpSink({ starttls: false }).start();
  const base = testEnv(database, {
    OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    LEASE_SECONDS: '5',
    RECONCILE_INTERVAL_SECONDS: '1',
    TRACKING_PORT: '0',
    TRACKING_MIN_CLICK_SECONDS: '0',
    ...env,
  });
  const tracking = await startTracking(loadConfig(base), { host: '127.0.0.1', flushIntervalMs: 100 });
  const full = { ...base, TRACKING_BASE_URL: tracking.url };
  const gateway = await startTestGateway({ database, env: full });
  const sender = await startSender(loadConfig(full));
  const owner = await signUp(gateway.api);
  const api = gateway.api.as({ token: (await createKey(owner.as)).token });
  return {
    database,
    sink,
    tracking,
    gateway,
    sender,
    owner,
    api,
    env: full,
    async stop() {
      await sender.stop();
      await gateway.close();
      await tracking.stop();
      await sink.stop();
      await database.drop();
    },
  };
}
