import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@mailroom/core';
import { Client } from 'pg';
import { SMTPServer } from 'smtp-server';
import { migrateDatabase } from '../../packages/db/src/migrate';
import { type RunningGateway, startGateway } from '../../services/gateway/src/start-gateway';
import { type RunningSender, startSender } from '../../services/sender/src/start-sender';
import { apiClient } from '../support/http';
import { until } from '../support/until';
import { PrivatePostgres } from './private-servers';

// PostgreSQL crashes between the next hop's 250 and the commit of that outcome.

let pg: PrivatePostgres;
let server: SMTPServer;
let gateway: RunningGateway;
let sender: RunningSender;
const deliveries: string[] = [];
let crashOnNextMessage = false;

async function recipientStatus(emailId: string): Promise<{ status: string; attempts: number } | undefined> {
  const client = new Client({ connectionString: pg.url('mailroom') });
  await client.connect();
  try {
    return (await client.query('SELECT status, attempts FROM email_recipients WHERE email_id = $1', [emailId])).rows[0];
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  pg = await PrivatePostgres.create();
  await pg.start();
  await migrateDatabase(pg.url('mailroom'));
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData: (stream, session, callback) => {
      let head = '';
      stream.on('data', (chunk: Buffer) => (head += chunk.toString('latin1')));
      stream.on('end', async () => {
        const id = /^Message-ID:\s*<([^>]+)>/im.exec(head)?.[1];
        for (const rcpt of session.envelope.rcptTo) deliveries.push(`${id} ${rcpt.address}`);
        // The message is taken; the database goes before the sender hears the 250.
        if (crashOnNextMessage) {
          crashOnNextMessage = false;
          await pg.stop('immediate');
        }
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: pg.url('mailroom'),
    REDIS_URL: 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `mrtest-chaos-outcome-${randomBytes(4).toString('hex')}`,
    SECRET_KEY: 'chaos-test-secret-key-that-is-long-enough-0123456789',
    API_PORT: '0',
    OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    ALLOW_PRIVATE_NETWORKS: 'true',
    LEASE_SECONDS: '3',
    RECONCILE_INTERVAL_SECONDS: '1',
    SMTP_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
  });
  gateway = await startGateway(config, { host: '127.0.0.1' });
  sender = await startSender(config);
}, 60_000);

afterAll(async () => {
  await sender?.stop();
  await gateway?.stop();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await pg?.remove();
}, 60_000);

async function sendThroughCrash(token: string, to: string, downMs: number): Promise<string> {
  const api = apiClient(gateway.url);
  const before = deliveries.length;
  crashOnNextMessage = true;
  const sent = await api.post('/emails', { from: 'hello@acme.test', to, subject: 'Once', text: 'Hello' }, { token });
  expect(sent.status).toBe(200);
  await until(() => deliveries.length === before + 1, 15_000, 'the first delivery');
  await new Promise((resolve) => setTimeout(resolve, downMs));
  await pg.start();
  await until(async () => (await recipientStatus(sent.body.id))?.status === 'delivered', 20_000, 'the outcome to be recorded', 250);
  // Long enough for an expired lease to be reconciled and the email sent again, were it to be.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  expect(deliveries.slice(before)).toEqual([`${sent.body.id}@acme.test ${to}`]);
  expect(await recipientStatus(sent.body.id)).toEqual({ status: 'delivered', attempts: 1 });
  return sent.body.id;
}

let token = '';

test('when PostgreSQL crashes after the next hop answered 250 and before the outcome is committed, then the recipient is not sent twice', async () => {
  const api = apiClient(gateway.url);
  const signup = await api.post('/auth/signup', { email: 'owner@acme.test', password: 'correct horse battery', projectName: 'Acme' });
  token = (await api.as({ session: signup.body.sessionToken, project: signup.body.project.id }).post('/api-keys', { name: 'k' })).body.token;
  // Down for longer than a retry of the job's backoff, shorter than the lease the sender holds.
  await sendThroughCrash(token, 'once@example.test', 2_000);
}, 60_000);

test('when PostgreSQL stays down for longer than the lease, then the outcome waits for it and the recipient is still not sent twice', async () => {
  // The lease (3 s) lapses during the outage: the reconciler finds the email due once
  // PostgreSQL is back, and only the sender holding the outcome may touch it.
  await sendThroughCrash(token, 'longer@example.test', 7_000);
}, 60_000);
