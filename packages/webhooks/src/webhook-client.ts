import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type Socket } from 'node:net';
import { writePerTurn } from '@mailroom/core';
import { buildConnector, Client, Pool } from 'undici';
import { ExchangeDeadlines, type ExchangeOutcome, ExchangeTimeoutError, PostExchange } from './post-exchange';
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
  /** Which connections have answered before: only on one of those is a POST made again. */
  private readonly sockets = new AnsweredSockets();

  constructor(private readonly options: WebhookClientOptions) {}

  async post(url: string, body: string, headers: Record<string, string>): Promise<PostResult> {
    const started = performance.now();
    const deadline = started + this.options.timeoutSeconds * 1000;
    const target = this.targets.get(url) ?? (await this.target(url));
    let outcome: ExchangeOutcome;
    if (target.refused !== undefined) {
      outcome = { ok: false, error: target.refused, status: null };
    } else {
      outcome = await this.exchange(target, body, headers, deadline, this.pool(target.origin));
      // Once more, within the same deadline and on a new connection of its own, when a kept-alive
      // connection closed before any response: a receiver that closes idle keep-alive connections
      // without announcing it (no Keep-Alive timeout hint) can close one just as this POST goes
      // out on it. RFC 9110 §9.2.2 allows retrying a POST whose semantics are known to be
      // idempotent: a delivery is, by its webhook-id (at-least-once, DESIGN §5). A connection made
      // for this POST that closed without answering is the receiver's failure (it may well have
      // read the POST): not made again here, but retried on the schedule.
      if (closedOnReuse(outcome, this.sockets) && performance.now() < deadline) {
        const fresh = new Client(target.origin, this.clientOptions());
        try {
          outcome = await this.exchange(target, body, headers, deadline, fresh);
        } finally {
          void fresh.destroy();
        }
      }
    }
    const durationMs = Math.round(performance.now() - started);
    if (!outcome.ok) {
      return { status: null, body: null, error: describeError(outcome.error, this.options.timeoutSeconds, outcome.status), durationMs, retryAfterSeconds: null };
    }
    return { status: outcome.status, body: outcome.body, error: null, durationMs, retryAfterSeconds: parseRetryAfter(outcome.retryAfter) };
  }

  /**
   * One POST, on `dispatcher`: the origin's pool, or a one-off connection for the retry. On the
   * pool its deadline joins `deadlines`, which holds them in start order; the one retry starts
   * later with the original deadline, so it has a timer of its own (a rare path).
   */
  private exchange(target: Target, body: string, headers: Record<string, string>, deadline: number, dispatcher: Pool | Client): Promise<ExchangeOutcome> {
    const shared = dispatcher instanceof Pool;
    return new Promise<ExchangeOutcome>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const exchange = new PostExchange(deadline, (result) => {
        if (shared) this.deadlines.delete(exchange);
        else clearTimeout(timer);
        resolve(result);
      });
      if (shared) {
        this.deadlines.add(exchange);
      } else {
        timer = setTimeout(() => exchange.expire(), Math.max(0, deadline - performance.now()));
        timer.unref();
      }
      dispatcher.dispatch({ path: target.path, method: 'POST', headers, body }, exchange);
    });
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

  /** How the origin's connections are made: the pool's, and the retry's one-off connection. */
  private clientOptions(): Pool.Options {
    const connect = buildConnector({
      timeout: this.options.timeoutSeconds * 1000,
      lookup: (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback) => this.lookup(hostname, lookupOptions, callback),
    } as buildConnector.BuildOptions);
    return {
      // The posts started in one turn of the event loop leave together at its end (writePerTurn):
      // the receiver is woken once for them, not once each.
      connect: (options, callback) =>
        connect(options, (err, socket) => {
          if (err !== null || socket === null) return callback(err ?? new Error('no connection'), null);
          this.sockets.track(socket as Socket);
          writePerTurn(socket as Socket);
          callback(null, socket);
        }),
      // The exchange's deadline (`deadlines`) bounds headers and body already: undici's own
      // timers would only be set, refreshed and cleared on every POST.
      headersTimeout: 0,
      bodyTimeout: 0,
      keepAliveTimeout: KEEP_ALIVE_MS,
    };
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, this.clientOptions());
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

/** Seconds from now: `Retry-After` as delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text);
  const date = parseHttpDate(text, now);
  return date === null ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

const MONTHS = 'Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec';
const DAY_NAME = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// The three forms a recipient must accept (RFC 9110 §5.6.7), case-sensitive as there: IMF-fixdate
// "Sun, 06 Nov 1994 08:49:37 GMT", the obsolete RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT" and
// asctime "Sun Nov  6 08:49:37 1994" (GMT too). Date.parse alone is no judge: it takes "-5" as
// a year and reads asctime in the local time zone.
const IMF_FIXDATE = new RegExp(`^${DAY_NAME}, (\\d{2}) (${MONTHS}) (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-(${MONTHS})-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY_NAME} (${MONTHS}) ([ \\d]\\d) ${TIME} (\\d{4})$`);
const FIFTY_YEARS_MS = 50 * 365.25 * 86_400_000;

/** An HTTP-date in milliseconds since the epoch, or null when it is none (or names no real day). */
function parseHttpDate(text: string, now: number): number | null {
  const imf = IMF_FIXDATE.exec(text);
  const rfc850 = imf ? null : RFC850_DATE.exec(text);
  const asctime = imf || rfc850 ? null : ASCTIME_DATE.exec(text);
  const fields = imf ?? rfc850;
  // day, month, year, hour, minute, second
  const parts = fields ? fields.slice(1, 7) : asctime ? [asctime[2], asctime[1], asctime[6], asctime[3], asctime[4], asctime[5]] : null;
  if (!parts) return null;
  const [day, hour, minute, second] = [Number(parts[0]), Number(parts[3]), Number(parts[4]), Number(parts[5])];
  const month = MONTHS.split('|').indexOf(parts[1] as string);
  if (hour > 23 || minute > 59 || second > 60) return null;
  const at = (year: number) => Date.UTC(year, month, day, hour, minute, Math.min(second, 59));
  let date: number;
  if (rfc850) {
    // A two-digit year more than 50 years ahead is the latest past year ending so (RFC 9110 §5.6.7).
    const year = Math.floor(new Date(now).getUTCFullYear() / 100) * 100 + Number(parts[2]);
    date = at(year) - now > FIFTY_YEARS_MS ? at(year - 100) : at(year);
  } else {
    date = at(Number(parts[2]));
  }
  // Date.UTC rolls 31 Feb over into March: such a date is no date.
  return new Date(date).getUTCDate() === day ? date : null;
}

// Node's certificate verification failures: OpenSSL's X509 codes (DEPTH_ZERO_SELF_SIGNED_CERT,
// CERT_HAS_EXPIRED, UNABLE_TO_VERIFY_LEAF_SIGNATURE, …) and a host name the certificate does not name.
const TLS_CERTIFICATE_ERROR = /^(ERR_TLS_CERT_ALTNAME_INVALID|[A-Z_]*(CERT|SELF_SIGNED)[A-Z_]*|UNABLE_TO_[A-Z_]+)$/;

/**
 * Whether the exchange failed because a connection that had answered an earlier request closed
 * before any byte of this one's answer (`AnsweredSockets` knows which had).
 */
function closedOnReuse(outcome: ExchangeOutcome, sockets: AnsweredSockets): boolean {
  if (outcome.ok || outcome.status !== null) return false;
  const e = outcome.error as { code?: string; message?: string };
  const closed = e.code === 'ECONNRESET' || e.code === 'EPIPE' || (e.code === 'UND_ERR_SOCKET' && e.message === 'other side closed');
  return closed && sockets.hadAnswered(outcome.error);
}

// On a socket's error: whether the socket had received anything before it.
const HAD_ANSWERED = Symbol('mailroom.hadAnswered');

/**
 * Which live connections have received an answer: a kept-alive one, as opposed to one made for
 * the request that failed on it. Byte counters cannot tell (a TLS socket reads its handshake).
 * A socket's own error is marked before undici's listener sees it; undici's "other side closed"
 * names the socket by its local address and port, looked up here until the socket is gone.
 */
class AnsweredSockets {
  private readonly answered = new Map<string, boolean>();

  track(socket: Socket): void {
    const key = `${socket.localAddress}:${socket.localPort}`;
    this.answered.set(key, false);
    socket.once('data', () => this.answered.set(key, true));
    socket.prependListener('error', (err: Error & { [HAD_ANSWERED]?: boolean }) => {
      err[HAD_ANSWERED] = this.answered.get(key) === true;
    });
    // After undici's own handlers, and the exchange's reading of the error, have run.
    socket.once('close', () => setImmediate(() => this.answered.delete(key)));
  }

  hadAnswered(err: unknown): boolean {
    const e = err as { [HAD_ANSWERED]?: boolean; socket?: { localAddress?: string; localPort?: number } };
    if (e[HAD_ANSWERED] !== undefined) return e[HAD_ANSWERED];
    return e.socket !== undefined && this.answered.get(`${e.socket.localAddress}:${e.socket.localPort}`) === true;
  }
}

/** `cutStatus`: the status of a response that failed before its end. */
function describeError(err: unknown, timeoutSeconds: number, cutStatus: number | null = null): string {
  if (err instanceof UnsafeWebhookHostError) return err.message;
  const e = err as { name?: string; code?: string; message?: string; syscall?: string; hostname?: string };
  // Never connected: the receiver was not reached, so "no answer" would send its owner looking in the wrong place.
  if ((err instanceof ExchangeTimeoutError && !err.connected) || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `No connection within ${timeoutSeconds} s (WEBHOOK_TIMEOUT_SECONDS): the host name lookup, the TCP connection or the TLS handshake did not complete.`;
  }
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
    // Its head came in time, its body did not: say which answer it was.
    if (cutStatus !== null) return `The HTTP ${cutStatus} response did not end within ${timeoutSeconds} s (WEBHOOK_TIMEOUT_SECONDS).`;
    return `No answer within ${timeoutSeconds} s (WEBHOOK_TIMEOUT_SECONDS).`;
  }
  if (e.name === 'UnsafeWebhookHostError' && e.message) return e.message;
  // A DNS failure (`DNS_SERVERS` answered SERVFAIL, refused or timed out): c-ares errors name their query (`queryA`, `queryAaaa`).
  if (e.syscall?.startsWith('query') && e.code) return `The host ${e.hostname ?? ''} could not be looked up (DNS answered ${e.code}).`;
  if (e.code === 'ECONNREFUSED') return 'Connection refused.';
  // Certificates are always verified: a self-signed, expired or wrongly named one fails the attempt, saying so.
  if (e.code && TLS_CERTIFICATE_ERROR.test(e.code)) return `The TLS certificate was refused: ${e.message ?? e.code} (${e.code}).`.slice(0, 500);
  // A response that began (the receiver may have acted on the event) is a failure all the same: it did not end.
  if (cutStatus !== null) return `The connection ended during the HTTP ${cutStatus} response, before its end.`;
  // undici refuses any 100 Continue it did not ask for (it sends no Expect), though RFC 9110 §15.2 lets one precede the answer.
  if (e.code === 'UND_ERR_SOCKET' && e.message === 'bad response') return 'The receiver answered 100 Continue unasked, which is not accepted: answer with the final status only.';
  if (e.code === 'ECONNRESET' || e.code === 'UND_ERR_SOCKET') return 'Connection reset before a response.';
  if (e.code === 'ENOTFOUND') return e.message ?? 'The host does not resolve.';
  if (e.code && /^E[A-Z]+$/.test(e.code)) return `Request failed (${e.code}).`;
  if (e.code === 'ERR_INVALID_URL') return 'Invalid URL.';
  return `Request failed: ${e.message ?? String(err)}`.slice(0, 500);
}
