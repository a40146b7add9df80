import { checkMaxRetries, checkTimeoutMs, idempotencyKeyHeader, pathSegment } from './checks.ts';
import { MailroomConnectionError, MailroomError, type MailroomErrorName, MailroomTimeoutError } from './errors.ts';
import type { ListItem, Method, Operation, PathFor, PathParams, QueryParams, RequestBody, SuccessBody } from './operation-types.ts';
import type { paths } from './generated/openapi.ts';
import { type Page, PagePromise } from './pagination.ts';
import type { RequestOptions } from './request-options.ts';
import { isRetryableStatus, parseRetryAfter, retryDelayMs, sleep } from './retry.ts';
import { VERSION } from './version.ts';

/** How a client proves who it is (DESIGN §4 "Authentication"); `null` for sign-up and sign-in. */
export type Credentials = { apiToken: string } | { sessionToken: string; projectId: string } | null;

export interface HttpClientOptions {
  baseUrl: string;
  credentials: Credentials;
  timeoutMs: number;
  maxRetries: number;
  fetch: typeof fetch;
}

/** What a call sends besides the method and the path template. */
export interface CallInit<O> {
  params?: PathParams<O>;
  query?: QueryParams<O>;
  body?: RequestBody<O>;
  /** A send: gets a generated idempotency key when retries are on and none was given. */
  send?: boolean;
}

type AnyInit = { params?: object; query?: object; body?: unknown; send?: boolean };

/**
 * Sends requests to the gateway: headers for the credentials, JSON in and out, one timeout per
 * attempt, retries for safe requests, and every failure as one of the client's error classes.
 * Paths are the document's templates (`/emails/{id}`), so each call is checked against the
 * generated types.
 */
export class HttpClient {
  constructor(private readonly options: HttpClientOptions) {}

  /** Calls an operation that answers JSON. */
  call<M extends Method, P extends PathFor<M>>(
    method: M,
    path: P,
    init: CallInit<Operation<P, M>>,
    options: RequestOptions = {},
  ): Promise<SuccessBody<Operation<P, M>>> {
    return this.request(method, path, init as AnyInit, options, (res) => res.json() as Promise<SuccessBody<Operation<P, M>>>);
  }

  /** Calls an operation that answers bytes (a raw message, an attachment). */
  bytes<P extends PathFor<'get'>>(path: P, init: CallInit<Operation<P, 'get'>>, options: RequestOptions = {}): Promise<Uint8Array> {
    return this.request('get', path, init as AnyInit, options, async (res) => new Uint8Array(await res.arrayBuffer()));
  }

  /** A list: the first page when awaited, every item across pages when iterated. */
  list<P extends PathFor<'get'>>(
    path: P,
    init: CallInit<Operation<P, 'get'>>,
    options: RequestOptions = {},
  ): PagePromise<ListItem<Operation<P, 'get'>>> {
    type Item = ListItem<Operation<P, 'get'>>;
    const first = init.query as Record<string, unknown> | undefined;
    return new PagePromise<Item>((after) => {
      const query = after === undefined ? first : { ...first, after };
      return this.request('get', path, { ...(init as AnyInit), query }, options, (res) => res.json() as Promise<Page<Item>>);
    });
  }

  private async request<T>(method: Method, template: keyof paths, init: AnyInit, options: RequestOptions, read: (res: Response) => Promise<T>): Promise<T> {
    const url = this.url(template, init);
    const maxRetries = options.maxRetries === undefined ? this.options.maxRetries : checkMaxRetries(options.maxRetries, 'maxRetries');
    if (options.timeoutMs !== undefined) checkTimeoutMs(options.timeoutMs, 'timeoutMs');
    const idempotencyKey = options.idempotencyKey ?? (init.send && maxRetries > 0 ? generateIdempotencyKey() : undefined);
    const headers = this.headers(init.body !== undefined, idempotencyKey);
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    // Reads change nothing, and a keyed send is done at most once whatever is repeated. Other
    // writes are tried once: the gateway keeps idempotency keys for sends only.
    const safe = method === 'get' || (init.send === true && idempotencyKey !== undefined);
    for (let retry = 0; ; retry++) {
      const canRetry = safe && retry < maxRetries;
      let failure: Error;
      try {
        return await this.attempt(url, { method: method.toUpperCase(), headers, body }, options, read);
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        failure = error as Error;
      }
      const retryable = !(failure instanceof MailroomError) || isRetryableStatus(failure.statusCode, failure.name);
      const delay = canRetry && retryable ? retryDelayMs(retry, failure instanceof MailroomError ? failure.retryAfterSeconds : null) : null;
      if (delay === null) throw failure;
      await sleep(delay, options.signal);
    }
  }

  /** One try: fetch and read the body within the timeout. */
  private async attempt<T>(url: string, init: RequestInit, options: RequestOptions, read: (res: Response) => Promise<T>): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    try {
      const res = await this.options.fetch(url, { ...init, signal: controller.signal, redirect: 'manual' });
      if (!res.ok) throw await errorFrom(res);
      try {
        return await read(res);
      } catch (error) {
        // A 2xx whose body is not what the document says (a proxy's page): not a network failure.
        // By name: fetch's SyntaxError may come from another realm than this code's.
        if ((error as Error)?.name === 'SyntaxError') throw unexpectedResponse(res, `a body that is not JSON (${(error as Error).message})`);
        throw error;
      }
    } catch (error) {
      if (error instanceof MailroomError || options.signal?.aborted) throw error;
      if (timedOut) throw new MailroomTimeoutError(timeoutMs);
      throw new MailroomConnectionError(`Could not reach Mailroom at ${url}: ${(error as Error).message}`, { cause: error });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  private url(template: string, init: AnyInit): string {
    const params = (init.params ?? {}) as Record<string, unknown>;
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => pathSegment(params[name], name, template));
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries((init.query ?? {}) as Record<string, unknown>)) {
      if (value !== undefined && value !== null) search.append(name, String(value));
    }
    const query = search.toString();
    return `${this.options.baseUrl}${path}${query ? `?${query}` : ''}`;
  }

  private headers(hasBody: boolean, idempotencyKey: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': `mailroom-client-js/${VERSION}` };
    if (hasBody) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKeyHeader(idempotencyKey);
    const credentials = this.options.credentials;
    if (credentials && 'apiToken' in credentials) headers.authorization = `Bearer ${credentials.apiToken}`;
    else if (credentials) {
      headers['x-service-session'] = credentials.sessionToken;
      headers['x-project-id'] = credentials.projectId;
    }
    return headers;
  }
}

/**
 * A random key for a send (128 bits as 32 hex characters). getRandomValues rather than
 * randomUUID, which browsers offer only on https pages.
 */
function generateIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The error an answer that is not 2xx stands for: the contract's JSON, or `unexpected_response`. */
async function errorFrom(res: Response): Promise<MailroomError> {
  const text = await res.text();
  const requestId = res.headers.get('x-request-id');
  const retryAfterSeconds = parseRetryAfter(res.headers.get('retry-after'));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isErrorBody(body)) return new MailroomError({ name: body.name, message: body.message, statusCode: res.status, requestId, retryAfterSeconds });
  const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return unexpectedResponse(res, `no Mailroom error JSON${excerpt ? `: ${excerpt}` : ''}`, retryAfterSeconds);
}

function unexpectedResponse(res: Response, what: string, retryAfterSeconds: number | null = null): MailroomError {
  return new MailroomError({
    name: 'unexpected_response',
    message: `HTTP ${res.status} with ${what}`,
    statusCode: res.status,
    requestId: res.headers.get('x-request-id'),
    retryAfterSeconds,
  });
}

function isErrorBody(body: unknown): body is { name: MailroomErrorName; message: string } {
  if (typeof body !== 'object' || body === null) return false;
  const { name, message } = body as Record<string, unknown>;
  return typeof name === 'string' && typeof message === 'string';
}
