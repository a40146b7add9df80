import { connect } from 'node:net';
import { createPool, type Pool } from '@mailroom/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { testEnv } from '../../../test/support/gateway';
import { ServiceProcess } from '../../../test/support/service-process';
import { get, insertTrackedEmail, tokens } from './support';

/**
 * One keep-alive connection that always has a request under way, as a busy ingress's upstream
 * connection does: each request is sent in two halves 50 ms apart, the next as soon as an answer
 * comes. It ends when an answer says `Connection: close` or the server closes.
 */
function busyKeepAlive(port: number, path: string): { readonly answered: number; stop(): void } {
  const socket = connect(port, '127.0.0.1');
  let answered = 0;
  let received = '';
  let timer: NodeJS.Timeout | undefined;
  const next = () => {
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
    timer = setTimeout(() => socket.write('User-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0\r\n\r\n'), 50);
  };
  socket.setEncoding('latin1');
  socket.on('connect', next);
  socket.on('error', () => undefined);
  socket.on('data', (chunk: string) => {
    received += chunk;
    for (;;) {
      const head = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(received.slice(0, head))?.[1] ?? 0);
      if (head < 0 || received.length < head + 4 + length) return;
      const headers = received.slice(0, head);
      received = received.slice(head + 4 + length);
      if (headers.startsWith('HTTP/1.1 200')) answered++;
      if (/^connection: close/im.test(headers)) return void socket.end();
      next();
    }
  });
  return {
    get answered() {
      return answered;
    },
    stop() {
      clearTimeout(timer);
      socket.destroy();
    },
  };
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

  /** A queued email to one recipient, and a tracking process on the test database; returns the recipient's pixel URL. */
  async function startWithEmail(): Promise<{ service: ServiceProcess; port: number; url: string; emailId: string }> {
    const { emailId, recipientId } = await insertTrackedEmail(pool, 'Sigterm');
    const service = await ServiceProcess.start('tracking', testEnv(database, { TRACKING_PORT: '0', LOG_LEVEL: 'info' }), 'tracking started');
    const started = service.output.find((line) => line.includes('tracking started')) as string;
    const port = (JSON.parse(started) as { port: number }).port;
    return { service, port, url: `http://127.0.0.1:${port}/o/${tokens.sign({ kind: 'open', emailId, recipientId })}`, emailId };
  }
  const opens = async (emailId: string) =>
    (await pool.query<{ n: number }>({ text: "SELECT count(*)::int AS n FROM email_events WHERE email_id = $1 AND type = 'email.opened'", values: [emailId] })).rows[0]?.n;

  test('when it gets SIGTERM with events still buffered, then it writes every one before exiting', async () => {
    const { service, port, url, emailId } = await startWithEmail();
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
    expect(await opens(emailId)).toBe(sent);
  });

  test('when a client keeps a keep-alive connection busy, then SIGTERM still ends the process promptly with every answered event written', async () => {
    const { service, port, url, emailId } = await startWithEmail();
    const client = busyKeepAlive(port, new URL(url).pathname);
    while (client.answered < 10) await new Promise((resolve) => setTimeout(resolve, 20));
    service.kill('SIGTERM');
    let deadline: NodeJS.Timeout | undefined;
    const exited = await Promise.race([service.waitForExit(), new Promise((resolve) => (deadline = setTimeout(() => resolve('still running'), 5_000)))]);
    clearTimeout(deadline);
    client.stop();
    if (exited === 'still running') await service.stop();
    expect(exited).toBe(0);
    expect(await opens(emailId)).toBe(client.answered);
  });
});
