import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method: 'POST' | 'GET';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Measured seconds. */
  durationSeconds: number;
  /** Seconds of the same load before measuring, not counted. */
  warmupSeconds: number;
  /** The answers that count as served (default 2xx; a redirect's are 3xx). */
  expect?: '2xx' | '3xx';
}

export interface LoadResult {
  /** Expected answers (2xx, or 3xx) per second over the measured run. */
  okPerSecond: number;
  ok: number;
  /** Expected answers during the warm-up. */
  warmupOk: number;
  non2xx: number;
  /** Socket errors (includes timeouts). */
  errors: number;
  timeouts: number;
  seconds: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** The first non-2xx answer of the measured run: status and body, as received. */
  firstError?: { status: number; body: string };
}

function once(options: LoadOptions, seconds: number, onError?: (status: number, body: string) => void): Promise<autocannon.Result> {
  return autocannon({
    url: options.url,
    connections: options.connections,
    duration: seconds,
    // Our own timeout is generous: a slow answer is measured, not dropped.
    timeout: 30,
    requests: [
      {
        method: options.method,
        headers: { 'content-type': 'application/json', ...options.headers },
        body: options.body,
        // Given for every run so both sides pay the same cost of reading bodies.
        onResponse: (status: number, body: string) => {
          const first = options.expect === '3xx' ? 300 : 200;
          if ((status < first || status > first + 99) && onError) onError(status, body);
        },
      },
    ],
  });
}

/** Warm-up, then one measured autocannon run in this process. Only 2xx answers count. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const warmup = options.warmupSeconds > 0 ? await once(options, options.warmupSeconds) : undefined;
  let firstError: { status: number; body: string } | undefined;
  const result = await once(options, options.durationSeconds, (status, body) => {
    firstError ??= { status, body: body.slice(0, 2_000) };
  });
  const ok = result[options.expect ?? '2xx'];
  const seconds = result.duration;
  return {
    okPerSecond: seconds > 0 ? ok / seconds : 0,
    ok,
    warmupOk: warmup ? warmup[options.expect ?? '2xx'] : 0,
    non2xx: result.non2xx - (options.expect === '3xx' ? result['3xx'] : 0),
    errors: result.errors,
    timeouts: result.timeouts,
    seconds,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    ...(firstError ? { firstError } : {}),
  };
}
