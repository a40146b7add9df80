import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { loadConfig } from '@mailroom/core';
import { startGateway } from '../src/start-gateway';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { createKey, signUp, startTestGateway, testEnv, type TestGateway } from '../../../test/support/gateway';
import { until } from '../../../test/support/until';

// One gateway process holds at most API_MAX_BUFFERED_BYTES of request bodies at once: here 45 MB,
// just over the 40 MB a send may carry. A 30 MB body in flight leaves room for 15 MB more.
const BUDGET = 45_000_000;
const MB = 1_000_000;

describe('the gateway under a request body budget', () => {
  let t: TestGateway;
  let token: string;

  const buffered = async () => {
    const metric = await t.gateway.ctx.metrics.registry.getSingleMetric('mailroom_http_buffered_bytes')?.get();
    return metric?.values[0]?.value ?? Number.NaN;
  };

  /** A POST /emails whose body has `length` bytes, of which only `sent` are sent now. */
  const post = (length: number, sent: Buffer, headers: Record<string, string> = {}) => {
    const url = new URL(t.gateway.url);
    let answer: (res: { status: number; body: any; headers: IncomingMessage['headers'] }) => void = () => undefined;
    const answered = new Promise<{ status: number; body: any; headers: IncomingMessage['headers'] }>((resolve) => {
      answer = resolve;
    });
    const req: ClientRequest = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/emails',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(length), authorization: `Bearer ${token}`, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => answer({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || 'null'), headers: res.headers }));
      },
    );
    req.on('error', () => undefined);
    req.write(sent);
    return { req, answered };
  };

  beforeAll(async () => {
    const database: TestDatabase = await createTestDatabase('bodybudget');
    t = await startTestGateway({ database, env: testEnv(database, { API_MAX_BUFFERED_BYTES: String(BUDGET) }) });
    const owner = await signUp(t.api);
    token = (await createKey(owner.as)).token;
  });
  afterAll(() => t.close());

  test('when a body would pass the budget, then 503 service_unavailable with Retry-After before it is read; small requests go on; once the big body is answered, the next is taken', async () => {
    const big = post(30 * MB, Buffer.from('{"from":"a@acme.test",'));
    await until(async () => (await buffered()) === 30 * MB, 5_000, 'the big body to be held');

    const refused = post(20 * MB, Buffer.from('{'));
    const answer = await refused.answered;
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ name: 'service_unavailable', message: expect.any(String), statusCode: 503 });
    expect(answer.headers['retry-after']).toBe('1');
    // A compressed body is charged four times its length: 4 MB for this one's 1 MB does not fit.
    const gzipped = gzipSync(JSON.stringify({ from: 'a@acme.test', to: 'b@example.com', subject: 'Hi', text: 'Hi', html: `<p>${'x'.repeat(3 * MB)}</p>` }));
    const padded = Buffer.concat([gzipped, Buffer.alloc(4 * MB - gzipped.length)]);
    const compressed = post(MB * 4, padded.subarray(0, 10), { 'content-encoding': 'gzip' });
    expect((await compressed.answered).status).toBe(503);
    // A small compressed send is charged 64 KiB and goes through.
    const smallGzip = gzipSync(JSON.stringify({ from: 'a@acme.test', to: 'b@example.com', subject: 'Hi', text: 'Hi' }));
    const fits = post(smallGzip.length, smallGzip, { 'content-encoding': 'gzip' });
    fits.req.end();
    expect((await fits.answered).status).toBe(200);

    // A send that fits is taken meanwhile, and a request without a body holds nothing (were it
    // charged the send limit, 40 MB, it would be refused).
    const small = await t.api.as({ token }).post('/emails', { from: 'a@acme.test', to: 'b@example.com', subject: 'Hi', text: 'Hi' });
    expect(small.status).toBe(200);
    const url = new URL(t.gateway.url);
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    socket.write(`POST /emails HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    const [statusLine] = (await text(socket)).split('\r\n');
    expect(statusLine).toBe('HTTP/1.1 422 Unprocessable Entity');

    // A refused client that goes on sending its whole body still reads the answer, and its
    // connection is not reset under it: the rest is read and dropped, nothing held.
    const persistent = post(20 * MB, Buffer.alloc(MB, 0x20));
    const errors: string[] = [];
    persistent.req.on('error', (err: NodeJS.ErrnoException) => errors.push(err.code ?? err.message));
    const rest = Buffer.alloc(MB, 0x20);
    for (let i = 1; i < 20; i += 1) await new Promise<void>((resolve) => persistent.req.write(rest, () => resolve()));
    await new Promise<void>((resolve) => persistent.req.end(() => resolve()));
    expect((await persistent.answered).status).toBe(503);
    expect(errors).toEqual([]);
    expect(await buffered()).toBe(30 * MB);

    big.req.destroy();
    await until(async () => (await buffered()) === 0, 5_000, 'the big body to be given back');
    const again = post(20 * MB, Buffer.from(JSON.stringify({ from: 'a@acme.test', to: 'b@example.com', subject: 'Hi', text: 'x'.repeat(20 * MB - 200) }).padEnd(20 * MB)));
    again.req.end();
    expect((await again.answered).status).toBe(200);
    expect(await buffered()).toBe(0);
  });

  test('when API_MAX_BUFFERED_BYTES is less than the largest body an endpoint takes, then the gateway does not start and says why', async () => {
    const database = await createTestDatabase('bodybudgetsmall');
    try {
      await expect(startGateway(loadConfig(testEnv(database, { API_MAX_BUFFERED_BYTES: String(10 * MB), API_PORT: '0' })))).rejects.toThrow(
        /^Invalid API_MAX_BUFFERED_BYTES: it must be at least 41943040/,
      );
    } finally {
      await database.drop();
    }
  });
});

/** Everything a socket receives until it closes. */
async function text(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('latin1');
}
