import { deriveKey, newId, TrackingTokens } from '@mailroom/core';
import { type CpuOfProcesses, cpuSeconds } from './cpu-time';
import { type LoadResult, runLoad } from './load';
import type { RunningServer } from './services';

export interface TrackSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

// Sent by every request, so the pixel and redirect are judged as a person's would be.
const USER_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
export const TRACKED_LINK = 'https://acme.example/pricing?plan=pro&ref=mail';

/** The tokens of one seeded recipient, signed with the run's SECRET_KEY as the sender signs them. */
export function benchTokens(secretKey: string) {
  const emailId = newId('email');
  const recipientId = newId('recipient');
  const tokens = new TrackingTokens(deriveKey(secretKey, 'tracking'));
  return {
    emailId,
    recipientId,
    open: tokens.sign({ kind: 'open', emailId, recipientId }),
    click: tokens.sign({ kind: 'click', emailId, recipientId, url: TRACKED_LINK }),
  };
}

/**
 * A track measurement with the CPU spent per answer (warm-up included), in µs. For the tracking
 * service, `drainSeconds` is how long its buffer took to empty after the load stopped: it is
 * counted in the measurement's time (`okPerSecond`), so events left for after the window (a
 * writer falling behind) do not count as throughput.
 */
export type TrackSample = LoadResult & { cpuMicrosPerAnswer: { server?: number; postgres?: number; loadGenerator: number }; drainSeconds?: number };

/**
 * Loads `/o/<token>` (200) or `/c/<token>` (302) of one server with GETs, and measures the CPU
 * time the server process, the PostgreSQL backends of the bench database (`postgres`: ours
 * only, they write the events) and this process (the load generator) spent per answer: on a
 * shared 2-core machine the three take CPU from one another, so the rates follow where it goes.
 */
export async function measureTrack(server: RunningServer, path: string, expect: '2xx' | '3xx', settings: TrackSettings, postgres?: CpuOfProcesses, drain?: () => Promise<number>): Promise<TrackSample> {
  const serverPid = server.child.process.pid;
  const serverBefore = cpuSeconds(serverPid);
  await postgres?.start();
  const loadBefore = process.cpuUsage();
  const r = await runLoad({
    url: `${server.url}${path}`,
    method: 'GET',
    headers: { 'user-agent': USER_AGENT },
    connections: settings.connections,
    durationSeconds: settings.durationSeconds,
    warmupSeconds: settings.warmupSeconds,
    expect,
  });
  const load = process.cpuUsage(loadBefore);
  const drainSeconds = drain ? await drain() : undefined;
  const serverAfter = cpuSeconds(serverPid);
  const postgresSeconds = await postgres?.stop();
  const answers = r.ok + r.warmupOk;
  const perAnswer = (seconds: number | undefined) => (seconds === undefined || answers === 0 ? undefined : (seconds * 1e6) / answers);
  return {
    ...r,
    ...(drainSeconds === undefined ? {} : { drainSeconds, okPerSecond: r.ok / (r.seconds + drainSeconds) }),
    cpuMicrosPerAnswer: {
      server: perAnswer(serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore),
      postgres: perAnswer(postgresSeconds),
      loadGenerator: perAnswer((load.user + load.system) / 1e6) ?? Number.NaN,
    },
  };
}

/**
 * Waits until the tracking service at `url` has written its buffer: its
 * `mailroom_tracking_events_buffered` gauge reads 0 (a batch being written has left the buffer,
 * so up to one batch's write may still be in flight). Returns the seconds waited.
 */
export async function waitForTrackingBuffer(url: string, timeoutMs = 60_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const buffered = /^mailroom_tracking_events_buffered(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
    if (buffered === undefined) throw new Error('the tracking service exported no mailroom_tracking_events_buffered gauge');
    const waited = (performance.now() - started) / 1000;
    if (Number(buffered) === 0) return waited;
    if (waited * 1000 > timeoutMs) throw new Error(`the tracking service still had ${buffered} events buffered after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
