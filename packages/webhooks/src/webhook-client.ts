import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Pool } from 'undici';
import { ExchangeDeadlines, type ExchangeOutcome, PostExchange } from './post-exchange';
import { resolvePublicHost, type ResolveOptions, UnsafeWebhookHostError } from './resolve-public-host';

export { RESPONSE_BODY_BYTES } from './post-exchange';
// Idle keep-alive connections to an endpoint are closed after this (ms).
const KEEP_ALIVE_MS = 10_000;

/** What one POST came to. */
export interface PostResult {
  /** Null without a response (timeout, refused, blocked address). */
  status: number | null;
  /** The first 4 KB of the body, as UTF-8. */
  body: string | null;
  /** Why there was no response, in words fit for the attempt log (never a secret). */
  error: string | null;
  durationMs: number;
  /** `Retry-After` of the response, in seconds from now, when it had a valid one. */
  retryAfterSeconds: number | null;
}

export interface WebhookClientOptions extends ResolveOptions {
  timeoutSeconds: number;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A URL taken apart once: its origin's pool and the path to post to. */
interface Target {
  origin: string;
  path: string;
  /** Set when the URL cannot be posted to at all (unparseable, or a refused IP literal). */
  refused?: unknown;
}

// Parsed URLs kept per process; past it the cache starts over.
const MAX_CACHED_URLS = 10_000;
// Origins with a pool at once; past it the oldest pool is closed (after its requests) and made again on use.
const MAX_POOLS = 1_000;

/**
 * POSTs webhooks with undici: a connection pool per origin, redirects not
 * followed, `WEBHOOK_TIMEOUT_SECONDS` for the whole exchange, the response body read up to
 * 4 KB and then dropped. Every new connection resolves its host through `DNS_SERVERS`, is
 * refused when any address is not public (unless ALLOW_PRIVATE_NETWORKS), and connects only to
 * the addresses that were checked: the socket's `lookup` returns them, so no second lookup can
 * be answered differently. TLS keeps the URL's host name for SNI and certificate checks.
 */
export class WebhookClient {
  private readonly pools = new Map<string, Pool>();
  private readonly targets = new Map<string, Target>();
  /** `WEBHOOK_TIMEOUT_SECONDS` for each whole exchange, one timer for all. */
  private readonly deadlines = new ExchangeDeadlines();

  constructor(private readonly options: WebhookClientOptions) {}

  async post(url: string, body: string, headers: Record<string, string>): Promise<PostResult> {
    const started = performance.now();
    const target = this.targets.get(url) ?? (await this.target(url));
    const outcome: ExchangeOutcome =
      target.refused !== undefined
        ? { ok: false, error: target.refused }
        : await new Promise<ExchangeOutcome>((resolve) => {
            const exchange = new PostExchange(started + this.options.timeoutSeconds * 1000, (result) => {
              this.deadlines.delete(exchange);
              resolve(result);
            });
            this.deadlines.add(exchange);
            this.pool(target.origin).dispatch({ path: target.path, method: 'POST', headers, body }, exchange);
          });
    const durationMs = Math.round(performance.now() - started);
    if (!outcome.ok) {
      return { status: null, body: null, error: describeError(outcome.error, this.options.timeoutSeconds), durationMs, retryAfterSeconds: null };
    }
    return { status: outcome.status, body: outcome.body, error: null, durationMs, retryAfterSeconds: parseRetryAfter(outcome.retryAfter) };
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
    this.deadlines.clear();
  }

  /** The URL's origin and path, parsed once; an IP literal is checked here, as it never reaches `lookup`. */
  private async target(url: string): Promise<Target> {
    let target: Target;
    try {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (isIP(parsed.hostname.replace(/^\[(.*)\]$/, '$1')) !== 0) await resolvePublicHost(parsed.hostname, this.options);
    } catch (err) {
      target = { origin: '', path: '', refused: err };
    }
    if (this.targets.size >= MAX_CACHED_URLS) this.targets.clear();
    this.targets.set(url, target);
    return target;
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      const timeoutMs = this.options.timeoutSeconds * 1000;
      pool = new Pool(origin, {
        connect: { timeout: timeoutMs, lookup: (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback) => this.lookup(hostname, lookupOptions, callback) },
        // The exchange's deadline (`deadlines`) bounds headers and body already: undici's own
        // timers would only be set, refreshed and cleared on every POST.
        headersTimeout: 0,
        bodyTimeout: 0,
        keepAliveTimeout: KEEP_ALIVE_MS,
      });
      if (this.pools.size >= MAX_POOLS) {
        const [oldest, old] = this.pools.entries().next().value as [string, Pool];
        this.pools.delete(oldest);
        void old.close();
      }
      this.pools.set(origin, pool);
    }
    return pool;
  }

  private lookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
    resolvePublicHost(hostname, this.options).then(
      (checked) => {
        const usable = options.family === 4 || options.family === 6 ? checked.filter((a) => a.family === options.family) : checked;
        const first = usable[0];
        if (!first) return callback(Object.assign(new Error(`No IPv${options.family} address for ${hostname}.`), { code: 'ENOTFOUND' }), []);
        if (options.all) return callback(null, usable);
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  }
}

/** Seconds from now: `Retry-After` as delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP date (IMF-fixdate, RFC 9110 §5.6.7); Date.parse alone accepts "-5" as a year.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return null;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

function describeError(err: unknown, timeoutSeconds: number): string {
  if (err instanceof UnsafeWebhookHostError) return err.message;
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `No answer within ${timeoutSeconds} s (WEBHOOK_TIMEOUT_SECONDS).`;
  }
  if (e.name === 'UnsafeWebhookHostError' && e.message) return e.message;
  if (e.code === 'ECONNREFUSED') return 'Connection refused.';
  if (e.code === 'ECONNRESET' || e.code === 'UND_ERR_SOCKET') return 'Connection reset before a response.';
  if (e.code === 'ENOTFOUND') return e.message ?? 'The host does not resolve.';
  if (e.code && /^E[A-Z]+$/.test(e.code)) return `Request failed (${e.code}).`;
  if (e.code === 'ERR_INVALID_URL') return 'Invalid URL.';
  return `Request failed: ${e.message ?? String(err)}`.slice(0, 500);
}
