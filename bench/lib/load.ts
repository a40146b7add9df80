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
}

export interface LoadResult {
  /** 2xx answers per second over the measured run. */
  okPerSecond: number;
  ok: number;
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
          if ((status < 200 || status > 299) && onError) onError(status, body);
        },
      },
    ],
  });
}

/** Warm-up, then one measured autocannon run in this process. Only 2xx answers count. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (options.warmupSeconds > 0) await once(options, options.warmupSeconds);
  let firstError: { status: number; body: string } | undefined;
  const result = await once(options, options.durationSeconds, (status, body) => {
    firstError ??= { status, body: body.slice(0, 2_000) };
  });
  const ok = result['2xx'];
  const seconds = result.duration;
  return {
    okPerSecond: seconds > 0 ? ok / seconds : 0,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    ...(firstError ? { firstError } : {}),
  };
}
