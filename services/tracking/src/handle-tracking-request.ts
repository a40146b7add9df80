import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientAddress, MailroomError, requestPath, type TrackingTarget } from '@mailroom/core';
import type { EngagementHit } from '@mailroom/db';
import type { BotRules } from './bot-rules';
import { redirectLocation } from './redirect-location';

/** The smallest transparent GIF: 1×1, 43 bytes. */
export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

// No cache may keep the pixel or the redirect: every open and click must reach us.
const NO_CACHE = {
  'cache-control': 'no-store, no-cache, must-revalidate, max-age=0, private',
  pragma: 'no-cache',
  expires: '0',
} as const;
// The headers as flat [name, value, …] lists, which writeHead takes as they are (the redirect's but its Location).
const PIXEL_HEADERS = ['content-type', 'image/gif', 'content-length', String(PIXEL_GIF.length), ...Object.entries(NO_CACHE).flat()];
const REDIRECT_HEADERS = ['content-length', '0', ...Object.entries(NO_CACHE).flat()];
// A User-Agent longer than this is cut before it is stored.
const MAX_USER_AGENT = 512;

/** What became of a tracking request: the `outcome` label of `mailroom_tracking_requests_total`. */
export type TrackingOutcome = 'ok' | 'bot' | 'not_found' | 'head';

export interface TrackingRequestDeps {
  /** Checks a token (TrackingTokens, or VerifiedTokens in front of it). */
  tokens: { verify(token: string): TrackingTarget | null };
  bots: BotRules;
  /** Takes the hit for the buffer (GET only; HEAD records nothing). */
  record(hit: EngagementHit): void;
  /** Take the client address from X-Forwarded-For's last entry (TRACKING_TRUST_PROXY). */
  trustProxy: boolean;
  /** Writes a pixel's or redirect's answer (EndOfTurnAnswers: at the end of the event loop's turn). */
  answer(res: ServerResponse, status: number, headers: readonly string[], body?: Buffer): void;
  /** Counts answered requests by route and outcome (`bot`: recorded as `is_bot` from its user agent or address). */
  count(route: 'open' | 'click', outcome: TrackingOutcome): void;
}

/**
 * Answers `/o/<token>` and `/c/<token>` (DESIGN §6) from the token alone: the pixel with
 * no-cache headers, or a 302 to the link the token carries. A token this deployment did not
 * sign (forged, truncated, altered, another `SECRET_KEY`'s, or an open-redirect attempt) is
 * 404 with no redirect and no event. Returns false for any other path.
 */
export function handleTrackingRequest(deps: TrackingRequestDeps, req: IncomingMessage, res: ServerResponse): boolean {
  const path = requestPath(req.url);
  const route = path.startsWith('/o/') ? 'open' : path.startsWith('/c/') ? 'click' : null;
  if (route === null) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    sendError(res, new MailroomError('method_not_allowed', `${req.method} is not allowed here; use GET.`));
    return true;
  }
  const target = deps.tokens.verify(tokenOf(path));
  const redirect = target?.kind === 'click' ? redirectHeaders(target) : null;
  if (target === null || target.kind !== route || (target.kind === 'click' && redirect === null)) {
    deps.count(route, 'not_found');
    sendError(res, new MailroomError('not_found', 'No such tracking link.'));
    return true;
  }
  const hit = req.method === 'GET' ? hitOf(deps, req, target) : null;
  if (hit) deps.record(hit);
  deps.count(route, hit === null ? 'head' : hit.isBot ? 'bot' : 'ok');
  if (target.kind === 'open') deps.answer(res, 200, PIXEL_HEADERS, req.method === 'GET' ? PIXEL_GIF : undefined);
  else deps.answer(res, 302, redirect as readonly string[]);
  return true;
}

// A click target's redirect headers, made once per target: VerifiedTokens hands out the same
// target for a token it has seen, so a link clicked again costs a lookup.
const redirects = new WeakMap<TrackingTarget, readonly string[] | null>();

/** The headers of a click's 302 (its Location first), or null when its link is no http(s) URL. */
function redirectHeaders(target: TrackingTarget & { kind: 'click' }): readonly string[] | null {
  let headers = redirects.get(target);
  if (headers === undefined) {
    const location = redirectLocation(target.url);
    headers = location === null ? null : ['location', location, ...REDIRECT_HEADERS];
    redirects.set(target, headers);
  }
  return headers;
}

/**
 * The token of a `/o/…` or `/c/…` path. Proxies and link rewriters sometimes add a trailing
 * slash, or percent-encode characters that need none (RFC 3986 §6.2.2.2: the same URL); neither
 * makes it another token. Anything else that decodes (`%2F`, `%00`) is left for verify() to refuse.
 */
function tokenOf(path: string): string {
  const end = path.charCodeAt(path.length - 1) === 0x2f ? path.length - 1 : path.length;
  const token = path.slice(3, end);
  if (!token.includes('%')) return token;
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}

function hitOf(deps: TrackingRequestDeps, req: IncomingMessage, target: TrackingTarget): EngagementHit {
  const userAgent = req.headers['user-agent']?.slice(0, MAX_USER_AGENT) || null;
  const ipAddress = clientAddress(req, deps.trustProxy);
  // Every hit has the same fields (link undefined for an open), so V8 keeps one shape for them.
  return {
    kind: target.kind,
    emailId: target.emailId,
    recipientId: target.recipientId,
    link: target.kind === 'click' ? target.url : undefined,
    ipAddress,
    userAgent,
    isBot: deps.bots.byRequest(userAgent, ipAddress) !== null,
    at: new Date(),
  };
}

/** The contract's error JSON. */
export function sendError(res: ServerResponse, error: MailroomError): void {
  if (res.headersSent) return;
  const body = JSON.stringify(error.toBody());
  res.writeHead(error.statusCode, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...NO_CACHE });
  res.end(body);
}
