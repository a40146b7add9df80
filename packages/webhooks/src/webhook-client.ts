import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { resolvePublicHost, type ResolveOptions, UnsafeWebhookHostError } from './resolve-public-host';

/** The part of a response body kept in the attempt log; the rest is never read. */
export const RESPONSE_BODY_BYTES = 4096;
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

/**
 * POSTs webhooks with undici: a connection pool per origin (undici's Agent), redirects not
 * followed, `WEBHOOK_TIMEOUT_SECONDS` for the whole exchange, the response body read up to
 * 4 KB and then dropped. Every new connection resolves its host through `DNS_SERVERS`, is
 * refused when any address is not public (unless ALLOW_PRIVATE_NETWORKS), and connects only to
 * the addresses that were checked: the socket's `lookup` returns them, so no second lookup can
 * be answered differently. TLS keeps the URL's host name for SNI and certificate checks.
 */
export class WebhookClient {
  private readonly agent: Agent;

  constructor(private readonly options: WebhookClientOptions) {
    const timeoutMs = options.timeoutSeconds * 1000;
    this.agent = new Agent({
      connect: { timeout: timeoutMs, lookup: (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback) => this.lookup(hostname, lookupOptions, callback) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: KEEP_ALIVE_MS,
    });
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<PostResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failure = (err: unknown): PostResult => ({ status: null, body: null, error: describeError(err, this.options.timeoutSeconds), durationMs: elapsed(), retryAfterSeconds: null });
    let hostname: string;
    try {
      hostname = new URL(url).hostname;
      // An IP literal never reaches `lookup`: check it here.
      if (isIP(hostname.replace(/^\[(.*)\]$/, '$1')) !== 0) await resolvePublicHost(hostname, this.options);
    } catch (err) {
      return failure(err);
    }
    try {
      const response = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.options.timeoutSeconds * 1000),
      });
      const text = await readPrefix(response.body);
      return {
        status: response.statusCode,
        body: text,
        error: null,
        durationMs: elapsed(),
        retryAfterSeconds: parseRetryAfter(response.headers['retry-after']),
      };
    } catch (err) {
      return failure(err);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
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

/** Reads at most RESPONSE_BODY_BYTES, then destroys the stream (leaving the loop early does). */
async function readPrefix(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_BODY_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8');
}

/** Seconds from now: `Retry-After` as delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text);
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
