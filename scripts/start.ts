/**
 * `pnpm start`: checks PostgreSQL and Redis, creates and migrates the database, then runs every
 * service under services/ as its own process with prefixed output until Ctrl-C or SIGTERM.
 */
import path from 'node:path';
import {
  type Config,
  ConfigError,
  createLogLinePrettifier,
  DependencyUnavailableError,
  loadConfig,
  PortInUseError,
  redactUrl,
  wantsPrettyLogs,
} from '@mailroom/core';
import { migrateDatabase } from '../packages/db/src/migrate';
import { checkPostgres, checkRedis, DependencyRejectedError } from './lib/check-dependencies';
import { checkPorts } from './lib/check-ports';
import { discoverServices, type ServiceCommand } from './lib/discover-services';
import { assignOpsPorts, type OpsPort } from './lib/ops-ports';
import { Supervisor } from './lib/supervisor';
import { waitForPort } from './lib/wait-for-port';

const REPOSITORY_ROOT = path.resolve(__dirname, '..');
// Printing the URLs waits for the ports to open, but no longer than this.
const READY_TIMEOUT_MS = 60_000;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function readConfig(): Readonly<Config> {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

async function checkDependencies(config: Readonly<Config>): Promise<void> {
  try {
    await checkPostgres(config.databaseUrl);
    await checkRedis(config.redisUrl);
  } catch (err) {
    if (err instanceof DependencyUnavailableError || err instanceof DependencyRejectedError) fail(err.message);
    throw err;
  }
}

async function checkPortsFree(config: Readonly<Config>, services: readonly ServiceCommand[], opsPorts: readonly OpsPort[]): Promise<void> {
  try {
    await checkPorts(config, new Set(services.map((s) => s.name)), opsPorts);
  } catch (err) {
    if (err instanceof PortInUseError) fail(err.message);
    throw err;
  }
}

function withOpsPorts(services: readonly ServiceCommand[], opsPort: number | undefined): ReturnType<typeof assignOpsPorts> {
  try {
    return assignOpsPorts(services, opsPort);
  } catch (err) {
    if (err instanceof RangeError) fail(err.message);
    throw err;
  }
}

async function migrate(config: Readonly<Config>): Promise<void> {
  let applied: readonly string[];
  try {
    applied = await migrateDatabase(config.databaseUrl);
  } catch (err) {
    fail(err instanceof Error ? err.message : `Migration failed: ${String(err)}`);
  }
  const count = `${applied.length} migration${applied.length === 1 ? '' : 's'}`;
  console.log(applied.length === 0 ? 'Database is up to date.' : `Database ready; applied ${count}: ${applied.join(', ')}.`);
}

/** The addresses worth showing, for the services that exist, with the port each one opens. */
function endpoints(config: Readonly<Config>, names: ReadonlySet<string>, opsPorts: readonly OpsPort[]): { label: string; value: string; port: number }[] {
  const list: { label: string; value: string; port: number }[] = [];
  if (names.has('gateway')) {
    list.push({ label: 'API', value: `${config.publicApiUrl}  (reference: ${config.publicApiUrl}/docs)`, port: config.apiPort });
  }
  if (names.has('tracking')) list.push({ label: 'Tracking', value: config.trackingBaseUrl, port: config.trackingPort });
  if (names.has('inbound-smtp')) list.push({ label: 'SMTP', value: `localhost:${config.smtpPort}`, port: config.smtpPort });
  for (const { service, port } of opsPorts) {
    if (port !== 0) list.push({ label: `Ops (${service})`, value: `http://localhost:${port}  (/healthz, /readyz, /metrics)`, port });
  }
  return list;
}

/** Where sent mail goes, so nobody wonders why a first email waits or reaches a real inbox. */
function deliveryNote(config: Readonly<Config>, names: ReadonlySet<string>): string[] {
  if (!names.has('sender')) return [];
  if (config.outboundSmtpUrl) return [`Mail is relayed through ${redactUrl(config.outboundSmtpUrl)} (OUTBOUND_SMTP_URL).`];
  return [
    `OUTBOUND_SMTP_URL is unset: mail goes directly to each recipient's MX host on port ${config.mxPort} (MX_PORT).`,
    'To catch every message locally instead, run `pnpm dev:mailbox` and start with the OUTBOUND_SMTP_URL it prints.',
  ];
}

async function printUrls(config: Readonly<Config>, services: readonly ServiceCommand[], opsPorts: readonly OpsPort[], stopping: () => boolean): Promise<void> {
  const names = new Set(services.map((s) => s.name));
  const list = endpoints(config, names, opsPorts);
  const opened = await Promise.all(list.map((e) => (e.port === 0 ? true : waitForPort(e.port, READY_TIMEOUT_MS, stopping))));
  if (stopping()) return;
  const closed = list.filter((_, i) => !opened[i]).map((e) => `${e.label} (port ${e.port})`);
  // Never claim to be running on a port nothing answers; the services' own logs say why.
  if (closed.length > 0) return void process.stderr.write(`Still waiting after ${READY_TIMEOUT_MS / 1000} s for: ${closed.join(', ')}.\n`);
  const width = Math.max(0, ...list.map((e) => e.label.length));
  const lines = list.map((e) => `  ${e.label.padEnd(width)}  ${e.value}`);
  const running = `Mailroom is running (${services.map((s) => s.name).join(', ')}):`;
  console.log(['', running, ...lines, ...deliveryNote(config, names), 'Press Ctrl-C to stop.', ''].join('\n'));
}

async function main(): Promise<void> {
  const config = readConfig();
  const discovered = discoverServices(REPOSITORY_ROOT);
  if (discovered.length === 0) fail('No service to start: no services/*/package.json has a "start" script.');
  const { services, ports: opsPorts } = withOpsPorts(discovered, config.opsPort);

  const terminal = process.stdout.isTTY === true;
  // Services write JSON to their pipe; on a terminal outside production, show it as people read logs.
  const format = wantsPrettyLogs(terminal, config.nodeEnv) ? createLogLinePrettifier({ colour: terminal }) : undefined;
  const supervisor = new Supervisor({ colour: terminal, format });
  let started = false;
  let signalled = false;
  const onSignal = () => {
    // Before the services start there is nothing to stop; a second signal means "now".
    if (!started) process.exit(0);
    if (signalled) return supervisor.kill();
    signalled = true;
    console.log('Stopping…');
    supervisor.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

  await checkPortsFree(config, services, opsPorts);
  await checkDependencies(config);
  await migrate(config);
  supervisor.start(services);
  started = true;
  void printUrls(config, services, opsPorts, () => signalled || supervisor.isStopping);

  const exitCode = await supervisor.done;
  // A failure was already reported when the service exited.
  if (exitCode === 0) console.log('Stopped.');
  process.exit(exitCode);
}

main().catch((err: unknown) => {
  process.stderr.write(`pnpm start failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
