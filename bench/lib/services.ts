import path from 'node:path';
import { resolveExpress } from './paths';
import { type Child, freePort, spawnTs, waitForPort } from './processes';
import type { EndpointCommand, EndpointReport } from './slow-endpoint';

/** What every Mailroom child of one bench run shares. */
export interface BenchEnvironment {
  databaseUrl: string;
  redisUrl: string;
  secretKey: string;
  /** node flags for the Mailroom children, e.g. --cpu-prof (BENCH_CPU_PROF=1). */
  nodeFlags: string[];
  echo: boolean;
}

export interface RunningServer {
  child: Child;
  url: string;
  /** From spawn until the port accepted connections, ms. */
  startupMs: number;
}

function mailroomEnv(env: BenchEnvironment, queuePrefix: string): Record<string, string> {
  return {
    NODE_ENV: 'development',
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    QUEUE_PREFIX: queuePrefix,
    SECRET_KEY: env.secretKey,
    LOG_LEVEL: 'silent',
  };
}

/** The real gateway: `node --import tsx services/gateway/src/main.ts`, ready once its port accepts connections. */
export async function startGateway(env: BenchEnvironment, queuePrefix: string): Promise<RunningServer> {
  const port = await freePort();
  const child = spawnTs('gateway', {
    script: 'services/gateway/src/main.ts',
    nodeFlags: env.nodeFlags,
    echo: env.echo,
    env: {
      ...mailroomEnv(env, queuePrefix),
      API_PORT: String(port),
      RATE_LIMIT_PER_SECOND: process.env.BENCH_RATE_LIMIT ?? '1000000',
      ALLOW_SIGNUP: 'true',
    },
  });
  const startupMs = await waitForPort(child, port);
  return { child, url: `http://127.0.0.1:${port}`, startupMs };
}

/** The real sender: `node --import tsx services/sender/src/main.ts`, delivering through the sink as its smarthost. */
export function startSender(env: BenchEnvironment, queuePrefix: string, sinkPort: number, extraEnv: Record<string, string> = {}, name = 'sender'): Child {
  return spawnTs(name, {
    script: 'services/sender/src/main.ts',
    nodeFlags: env.nodeFlags,
    echo: env.echo,
    env: { ...mailroomEnv(env, queuePrefix), OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sinkPort}`, ...extraEnv },
  });
}

/** The real webhook dispatcher: `node --import tsx services/webhook-dispatcher/src/main.ts`; the receiver is on loopback. */
export function startDispatcher(env: BenchEnvironment, queuePrefix: string, extraEnv: Record<string, string> = {}, name = 'webhook-dispatcher'): Child {
  return spawnTs(name, {
    script: 'services/webhook-dispatcher/src/main.ts',
    nodeFlags: env.nodeFlags,
    echo: env.echo,
    env: { ...mailroomEnv(env, queuePrefix), ALLOW_PRIVATE_NETWORKS: 'true', ...extraEnv },
  });
}

/** The scale scenario's SMTP sink or webhook receiver in its own process; see slow-endpoint.ts. */
export class SlowEndpoint {
  private constructor(readonly child: Child, readonly port: number) {}

  static async start(kind: 'smtp' | 'http', delayMs: number, echo: boolean): Promise<SlowEndpoint> {
    const port = await freePort();
    const child = spawnTs(`slow-${kind}`, { script: path.join('bench', 'lib', 'slow-endpoint.ts'), echo, ipc: true, env: { KIND: kind, PORT: String(port), DELAY_MS: String(delayMs) } });
    await waitForPort(child, port);
    return new SlowEndpoint(child, port);
  }

  /** The receiver's URL (http). */
  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Starts a new round: counters at zero. */
  reset(): Promise<EndpointReport> {
    return this.ask('reset');
  }

  /** What it saw since the last reset. */
  report(): Promise<EndpointReport> {
    return this.ask('report');
  }

  private ask(command: EndpointCommand): Promise<EndpointReport> {
    return new Promise((resolve, reject) => {
      this.child.process.once('message', (message) => resolve(message as EndpointReport));
      this.child.process.send(command, (err) => {
        if (err) reject(err);
      });
    });
  }
}

/** The webhooks baseline: raw undici in its own process; see raw-webhooks.ts. */
export function startRawWebhooks(url: string, count: number, inFlight: number, echo: boolean): Child {
  return spawnTs('raw-undici', {
    script: path.join('bench', 'lib', 'raw-webhooks.ts'),
    echo,
    ipc: true,
    env: { URL: url, COUNT: String(count), IN_FLIGHT: String(inFlight) },
  });
}

/** The accept baseline: a bare express 5 app in its own process. */
export async function startBareExpress(echo: boolean): Promise<RunningServer> {
  const port = await freePort();
  const child = spawnTs('bare-express', {
    script: path.join('bench', 'lib', 'bare-express.ts'),
    echo,
    env: { PORT: String(port), EXPRESS_PATH: resolveExpress() },
  });
  const startupMs = await waitForPort(child, port);
  return { child, url: `http://127.0.0.1:${port}`, startupMs };
}

/** The deliver baseline: raw nodemailer in its own process; see raw-sender.ts. */
export function startRawSender(sinkPort: number, count: number, inFlight: number, echo: boolean): Child {
  return spawnTs('raw-nodemailer', {
    script: path.join('bench', 'lib', 'raw-sender.ts'),
    echo,
    ipc: true,
    env: { SINK_PORT: String(sinkPort), COUNT: String(count), IN_FLIGHT: String(inFlight) },
  });
}

/** The real MX: `node --import tsx services/inbound-smtp/src/main.ts`, ready once its SMTP port accepts connections. */
export async function startInboundSmtp(env: BenchEnvironment, queuePrefix: string, extraEnv: Record<string, string> = {}): Promise<RunningServer & { port: number }> {
  const port = await freePort();
  const child = spawnTs('inbound-smtp', {
    script: 'services/inbound-smtp/src/main.ts',
    nodeFlags: env.nodeFlags,
    echo: env.echo,
    env: { ...mailroomEnv(env, queuePrefix), SMTP_PORT: String(port), ...extraEnv },
  });
  const startupMs = await waitForPort(child, port);
  return { child, url: `smtp://127.0.0.1:${port}`, port, startupMs };
}

/** A processing-only inbound process (INBOUND_ROLE=processing): no port; it works through the `inbound` queue. */
export function startInboundProcessing(env: BenchEnvironment, queuePrefix: string, extraEnv: Record<string, string>): Child {
  return spawnTs('inbound-processing', {
    script: 'services/inbound-smtp/src/main.ts',
    nodeFlags: env.nodeFlags,
    echo: env.echo,
    env: { ...mailroomEnv(env, queuePrefix), INBOUND_ROLE: 'processing', ...extraEnv },
  });
}

/** The receive baseline: a bare smtp-server that discards, in its own process; see bare-smtp-sink.ts. */
export async function startBareSmtpSink(echo: boolean, nodeFlags: string[] = []): Promise<RunningServer & { port: number }> {
  const port = await freePort();
  const child = spawnTs('bare-smtp-sink', { script: path.join('bench', 'lib', 'bare-smtp-sink.ts'), nodeFlags, echo, env: { PORT: String(port) } });
  const startupMs = await waitForPort(child, port);
  return { child, url: `smtp://127.0.0.1:${port}`, port, startupMs };
}

/** The real tracking service: `node --import tsx services/tracking/src/main.ts`, ready once its port accepts connections. */
export async function startTracking(env: BenchEnvironment, queuePrefix: string): Promise<RunningServer> {
  const port = await freePort();
  const child = spawnTs('tracking', {
    script: 'services/tracking/src/main.ts',
    nodeFlags: env.nodeFlags,
    echo: env.echo,
    env: { ...mailroomEnv(env, queuePrefix), TRACKING_PORT: String(port), TRACKING_BASE_URL: `http://127.0.0.1:${port}` },
  });
  const startupMs = await waitForPort(child, port);
  return { child, url: `http://127.0.0.1:${port}`, startupMs };
}

/** The tracking baseline: a bare node:http server answering the same bytes; see bare-tracking.ts. */
export async function startBareTracking(location: string, echo: boolean): Promise<RunningServer> {
  const port = await freePort();
  const child = spawnTs('bare-tracking', { script: path.join('bench', 'lib', 'bare-tracking.ts'), echo, env: { PORT: String(port), LOCATION: location } });
  const startupMs = await waitForPort(child, port);
  return { child, url: `http://127.0.0.1:${port}`, startupMs };
}
