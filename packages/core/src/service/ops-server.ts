import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { MailroomError, toMailroomError } from '../errors';
import type { Logger } from '../logger';
import { listenOnHost } from '../port-in-use';
import { answerNodeRefusals, httpServerOptions } from './client-error';
import { missingHostHeader } from './host-header';
import { checkMetricsToken } from './metrics';
import { checkReadiness, NOT_READY, type Readiness, type ReadinessProbes } from './readiness';
import { requestPath } from './request-path';

export interface OpsServerOptions {
  port: number;
  host?: string;
  registry: Registry;
  readiness(): Promise<Readiness>;
  metricsToken: string | undefined;
  logger: Logger;
}

export interface OpsServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/**
 * `/healthz`, `/readyz` and `/metrics` for a service without an HTTP API of its own (sender,
 * inbound-smtp, webhook-dispatcher), answering as the gateway's do: Kubernetes probes and
 * Prometheus scrape it on OPS_PORT. Errors are the contract's JSON.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const handle = (req: IncomingMessage, res: ServerResponse) => void handleOpsRequest(options, req, res);
  const server = createServer(httpServerOptions(5_000, 10_000), handle);
  answerNodeRefusals(server, { logger: options.logger, allow: 'GET, HEAD', handler: handle });
  await listenOnHost(server, options.port, options.host, 'OPS_PORT');
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Answers one request for `/healthz`, `/readyz` or `/metrics` (anything else is 404), never
 * throwing: for a service that serves these beside its own paths on one port (tracking).
 */
export async function handleOpsRequest(options: Pick<OpsServerOptions, 'registry' | 'readiness' | 'metricsToken' | 'logger'>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    await answer(options, req, res);
  } catch (err) {
    const error = toMailroomError(err);
    if (error.statusCode >= 500) options.logger.error({ err }, 'ops request failed');
    sendJson(res, error.statusCode, error.toBody());
  }
}

async function answer(options: Pick<OpsServerOptions, 'registry' | 'readiness' | 'metricsToken'>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const noHost = missingHostHeader(req);
  if (noHost !== null) {
    res.shouldKeepAlive = false;
    return sendJson(res, noHost.statusCode, noHost.toBody());
  }
  const path = requestPath(req.url);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const known = path === '/healthz' || path === '/readyz' || path === '/metrics';
    const error = known ? new MailroomError('method_not_allowed', `${req.method} is not allowed here; use GET.`) : notFound();
    if (known) res.setHeader('allow', 'GET, HEAD');
    return sendJson(res, error.statusCode, error.toBody());
  }
  if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
  if (path === '/readyz') {
    const { ready, checks } = await options.readiness();
    if (ready) return sendJson(res, 200, { status: 'ready', checks });
    const error = new MailroomError('service_unavailable', NOT_READY);
    return sendJson(res, 503, { ...error.toBody(), checks });
  }
  if (path === '/metrics') {
    checkMetricsToken(req.headers.authorization, options.metricsToken);
    const body = await options.registry.metrics();
    res.writeHead(200, { 'content-type': options.registry.contentType });
    res.end(body);
    return;
  }
  const error = notFound();
  sendJson(res, error.statusCode, error.toBody());
}

const notFound = () => new MailroomError('not_found', 'Only /healthz, /readyz and /metrics are served here.');

function sendJson(res: ServerResponse, status: number, body: object): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** What a worker's ops server needs besides its configuration: its metrics and what readiness probes. */
export interface WorkerOpsOptions {
  registry: Registry;
  logger: Logger;
  host?: string;
  probes: ReadinessProbes;
}

/**
 * The ops server of a worker (sender, inbound-smtp, webhook-dispatcher) on `OPS_PORT`, with
 * readiness from its PostgreSQL, Redis and migrations probes and its shutdown flag; none when OPS_PORT is unset.
 */
export function startWorkerOpsServer(config: { opsPort: number | undefined; metricsToken: string | undefined }, options: WorkerOpsOptions): Promise<OpsServer | undefined> {
  if (config.opsPort === undefined) return Promise.resolve(undefined);
  return startOpsServer({
    port: config.opsPort,
    host: options.host,
    registry: options.registry,
    metricsToken: config.metricsToken,
    logger: options.logger,
    readiness: () => checkReadiness(options.probes),
  });
}
