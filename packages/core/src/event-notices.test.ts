import { EventNotices } from './event-notices';
import { createLogger } from './logger';

const logger = createLogger({ service: 'test', level: 'silent', pretty: false });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('EventNotices', () => {
  test('when Redis does not answer, then committed() returns at once, one notice is in flight, and one more is sent for what was committed meanwhile', async () => {
    const pending: (() => void)[] = [];
    const notices = new EventNotices({ logger, retryMs: 3_600_000, notify: () => new Promise<void>((resolve) => pending.push(resolve)) });
    notices.committed();
    notices.committed();
    notices.committed();
    expect(pending).toHaveLength(1);
    pending[0]?.();
    await tick();
    expect(pending).toHaveLength(2);
    pending[1]?.();
    await tick();
    expect(pending).toHaveLength(2);
    await notices.stop();
  });

  test('when a notice fails, then it stays owed and is sent on the next retry, and stop() sends one still owed', async () => {
    let calls = 0;
    let fail = true;
    const notices = new EventNotices({
      logger,
      retryMs: 5,
      notify: async () => {
        calls += 1;
        if (fail) throw new Error('Connection is closed.');
      },
    });
    notices.start();
    notices.committed();
    // Sent at once, before any turn of the event loop (a 5 ms retry could fire in one on a busy machine).
    expect(calls).toBe(1);
    while (calls < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    fail = false;
    const before = calls;
    while (calls === before) await new Promise((resolve) => setTimeout(resolve, 5));
    const settled = calls;
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Once taken, nothing more is owed.
    expect(calls).toBe(settled);
    await notices.stop();
    expect(calls).toBe(settled);

    fail = true;
    const failing = new EventNotices({
      logger,
      retryMs: 3_600_000,
      notify: async () => {
        calls += 1;
        if (fail) throw new Error('Connection is closed.');
      },
    });
    failing.committed();
    await tick();
    fail = false;
    const beforeStop = calls;
    await failing.stop();
    expect(calls).toBe(beforeStop + 1);
  });
});
