import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '@mailroom/core';
import { startInbound, type RunningInbound } from '../../../services/inbound-smtp/src/start-inbound';
import { startSender, type RunningSender } from '../../../services/sender/src/start-sender';
import { type RunningTracking, startTracking } from '../../../services/tracking/src/start-tracking';
import { createTestDatabase } from '../../support/databases';
import { startTestGateway, testEnv, type TestGateway } from '../../support/gateway';
import type { ApiClient } from '../../support/http';
import { SmtpSink } from '../../support/smtp-sink';

/** What the dashboard's browser tests run against: the real services on one database. */
export interface DashboardStack {
  /** The gateway's origin (`http://127.0.0.1:PORT`); the dashboard is at `${url}/dashboard`. */
  url: string;
  t: TestGateway;
  sender: RunningSender;
  inbound: RunningInbound;
  /** Where the sender delivers every email (OUTBOUND_SMTP_URL). */
  sink: SmtpSink;
  /** The MX's port, for delivering received mail. */
  mxPort: number;
  /** The tracking service, when asked for (`{tracking: true}`); the sender's links point at it. */
  tracking?: RunningTracking;
  close(): Promise<void>;
}

const DASHBOARD = path.resolve(__dirname, '../../../packages/dashboard');

/** The newest modification time of the files under `dir`, in ms. */
function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const full = path.join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }, 0);
}

/**
 * Refuses to test a dashboard build older than its sources: the gateway serves `dist/` as it is
 * (built by `pnpm install` / `pnpm build`), so a page changed since would be tested as it was.
 */
export function assertDashboardBuilt(): void {
  let built = 0;
  try {
    built = statSync(path.join(DASHBOARD, 'dist/index.html')).mtimeMs;
  } catch {
    // Not built at all.
  }
  const sources = Math.max(newest(path.join(DASHBOARD, 'src')), statSync(path.join(DASHBOARD, 'index.html')).mtimeMs);
  if (built < sources) throw new Error('packages/dashboard/dist is older than packages/dashboard/src: run `pnpm --filter @mailroom/dashboard build` (or `pnpm build`) first.');
}

/**
 * The gateway (which serves the built dashboard), the sender relaying to an SMTP sink, and the
 * MX with its processing, in this process, on a fresh database and queue prefix.
 */
export async function startDashboardStack(label: string, env: Record<string, string> = {}, options: { tracking?: boolean } = {}): Promise<DashboardStack> {
  assertDashboardBuilt();
  const database = await createTestDatabase(label);
  const sink = await new SmtpSink({ starttls: false }).start();
  const baseEnv = testEnv(database, {
    OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    SMTP_PORT: '0',
    BOUNCE_DOMAIN: 'bounces.mailroom.test',
    SMTP_RETRY_SCHEDULE: '1,1',
    ALLOW_SIGNUP: 'true',
    ...env,
  });
  // The tracking service first, on a port it picks itself, so the sender's links name the port it
  // has: a port chosen beforehand could be taken meanwhile by a test running beside this one.
  const tracking = options.tracking ? await startTracking(loadConfig({ ...baseEnv, TRACKING_PORT: '0' }), { host: '127.0.0.1', flushIntervalMs: 50 }) : undefined;
  const fullEnv = tracking ? { ...baseEnv, TRACKING_BASE_URL: tracking.url } : baseEnv;
  const t = await startTestGateway({ database, env: fullEnv });
  const config = loadConfig(fullEnv);
  const sender = await startSender(config);
  const inbound = await startInbound(config, { host: '127.0.0.1', drainTimeoutMs: 1000 });
  return {
    url: t.gateway.url,
    t,
    sender,
    inbound,
    sink,
    mxPort: inbound.port,
    ...(tracking ? { tracking } : {}),
    async close() {
      await tracking?.stop();
      await inbound.stop();
      await sender.stop();
      await t.close();
      await sink.stop();
      await database.drop();
    },
  };
}

/** The API as the person signed in to `page` (their session and project), for setting up what a test needs. */
export async function apiAsPage(stack: DashboardStack, session: { sessionToken: string; projectId: string }): Promise<ApiClient> {
  return stack.t.api.as({ session: session.sessionToken, project: session.projectId });
}
