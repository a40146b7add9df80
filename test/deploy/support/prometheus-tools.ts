import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { stringify as toYaml } from 'yaml';
import { freePort } from '../../support/free-port';
import { until } from '../../support/until';

/**
 * Prometheus itself (Debian's `prometheus` package, which `.ci/run` installs: /usr/bin/promtool
 * and /usr/bin/prometheus) as a peer for test/deploy/prometheus-peer.test.ts: promtool's checks
 * and unit tests, and a real server scraping the running services.
 */

export const PROMTOOL = '/usr/bin/promtool';
export const PROMETHEUS = '/usr/bin/prometheus';

/** Throws with the command that installs them when promtool or prometheus is missing. */
export function requirePrometheusBinaries(): void {
  for (const binary of [PROMTOOL, PROMETHEUS]) {
    if (!existsSync(binary)) throw new Error(`${binary} is missing: apt-get install -y --no-install-recommends prometheus (Debian's package; .ci/run installs it)`);
  }
}

export interface ToolResult {
  code: number | null;
  /** stdout and stderr together, as promtool prints its findings on either. */
  output: string;
}

/** Runs promtool with `args`, `input` on its standard input. */
export function promtool(args: string[], input?: string): ToolResult {
  const result = spawnSync(PROMTOOL, args, { input, encoding: 'utf8', timeout: 60_000 });
  if (result.error) throw result.error;
  return { code: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/**
 * `promtool check metrics` on one exposition: its findings, one a line (exposition errors and
 * the naming lint). Exit 0: nothing; 3: lint findings only; 1: not parseable.
 */
export function checkMetrics(exposition: string): ToolResult & { findings: string[] } {
  const result = promtool(['check', 'metrics'], exposition);
  return { ...result, findings: result.output.split('\n').map((l) => l.trim()).filter(Boolean) };
}

/** The vector selectors of a PromQL expression as written (`metric{label="v"}`), by Prometheus's own grammar. */
export function selectorTexts(expression: string): string[] {
  const selectors: string[] = [];
  parser.parse(expression).iterate({
    enter(node) {
      if (node.name === 'VectorSelector') selectors.push(expression.slice(node.from, node.to));
    },
  });
  return selectors;
}

/**
 * What Grafana sends Prometheus for a dashboard target: its variables replaced as Grafana replaces
 * them for a panel showing `rangeSeconds` at `maxDataPoints` points, on a data source whose
 * scrape interval is `scrapeIntervalSeconds` (the panel's minimum interval):
 * `$__interval` = max(range / points, scrape interval), `$__rate_interval` = max($__interval +
 * scrape interval, 4 × scrape interval), `$__range` the range; a data source variable
 * (`${datasource}`, `$datasource`) its chosen name. Anything else starting with `$` is left as it
 * is (and fails to parse), so a variable the dashboard adds without this knowing it is noticed.
 */
export function grafanaExpression(
  expr: string,
  options: { rangeSeconds: number; scrapeIntervalSeconds: number; maxDataPoints?: number; datasourceVariables?: readonly string[] },
): string {
  const interval = Math.max(Math.ceil(options.rangeSeconds / (options.maxDataPoints ?? 1000)), options.scrapeIntervalSeconds);
  const rateInterval = Math.max(interval + options.scrapeIntervalSeconds, 4 * options.scrapeIntervalSeconds);
  const builtIns: Record<string, string> = {
    __rate_interval: `${rateInterval}s`,
    __interval_ms: String(interval * 1000),
    __interval: `${interval}s`,
    __range_ms: String(options.rangeSeconds * 1000),
    __range_s: String(options.rangeSeconds),
    __range: `${options.rangeSeconds}s`,
  };
  for (const name of options.datasourceVariables ?? []) builtIns[name] = 'prometheus';
  return expr.replace(/\$\{([A-Za-z0-9_]+)(?::[^}]*)?\}|\$([A-Za-z0-9_]+)/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare) as string;
    return builtIns[name] ?? whole;
  });
}

/** A result of /api/v1/query. */
export interface QueryResult {
  resultType: string;
  result: { metric: Record<string, string>; value?: [number, string] }[] | [number, string];
}

export interface PrometheusApiResponse<T> {
  status: 'success' | 'error';
  data: T;
  errorType?: string;
  error?: string;
}

/** A Prometheus server started for a test, its data directory and configuration under `dir`. */
export interface RunningPrometheus {
  url: string;
  /** What the server printed (its logs), for failure messages. */
  log(): string;
  /** GET an API path (`/api/v1/…`) with query parameters; the parsed answer, whatever its HTTP status. */
  api<T>(path: string, params?: Record<string, string>): Promise<PrometheusApiResponse<T>>;
  /** An instant query, now. */
  query(expr: string): Promise<PrometheusApiResponse<QueryResult>>;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `prometheus` on 127.0.0.1 (a free port), scraping each of `targets` (job name → base URL,
 * /metrics below it) every `scrapeIntervalSeconds`, evaluating `ruleFiles` as often, with its
 * TSDB under `dir`; resolves once /-/ready answers 200.
 */
export async function startPrometheus(options: {
  dir: string;
  targets: Record<string, string>;
  ruleFiles: string[];
  scrapeIntervalSeconds: number;
}): Promise<RunningPrometheus> {
  const interval = `${options.scrapeIntervalSeconds}s`;
  const config = {
    global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
    rule_files: options.ruleFiles,
    scrape_configs: Object.entries(options.targets).map(([job, base]) => {
      const url = new URL(base);
      return { job_name: job, metrics_path: `${url.pathname.replace(/\/$/, '')}/metrics`, scheme: url.protocol.replace(':', ''), static_configs: [{ targets: [url.host] }] };
    }),
  };
  const configFile = join(options.dir, 'prometheus.yml');
  writeFileSync(configFile, toYaml(config));
  const check = promtool(['check', 'config', configFile]);
  if (check.code !== 0) throw new Error(`promtool check config ${configFile}:\n${check.output}`);

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [`--config.file=${configFile}`, `--storage.tsdb.path=${join(options.dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString('utf8')));
  let exited = false;
  const exit = once(child, 'exit').then(() => {
    exited = true;
  });

  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exit;
    clearTimeout(timer);
  };
  const api = async <T>(path: string, params: Record<string, string> = {}): Promise<PrometheusApiResponse<T>> => {
    const res = await fetch(`${url}${path}?${new URLSearchParams(params)}`);
    return (await res.json()) as PrometheusApiResponse<T>;
  };
  try {
    await until(
      async () => {
        if (exited) throw new Error(`prometheus exited:\n${output}`);
        return fetch(`${url}/-/ready`).then(
          (res) => res.status === 200,
          () => false,
        );
      },
      60_000,
      'prometheus to be ready',
      200,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    log: () => output,
    api,
    query: (expr) => api<QueryResult>('/api/v1/query', { query: expr }),
    stop,
  };
}
