import { normalizeDomain, routeCandidates, type Verp } from '@mailroom/core';
import { findPostmasterRoute, findRecipientProject, findRoutesByMatch, type Queryable, type RouteMatch } from '@mailroom/db';

// How long a route found for an address is reused without asking PostgreSQL again (ms).
export const ROUTE_CACHE_TTL_MS = 5_000;
// Addresses remembered at most; the cache starts over when full.
const ROUTE_CACHE_SIZE = 10_000;

/** Why the MX accepts a recipient (DESIGN §7). */
export type Recipient =
  | { kind: 'route'; address: string; routeId: string; projectId: string }
  | { kind: 'verp'; address: string; recipientId: string; projectId: string }
  /** `fbl@BOUNCE_DOMAIN`, and postmaster bare or at BOUNCE_DOMAIN: kept without a project until read. */
  | { kind: 'fbl'; address: string };

/**
 * A route claims the address, but (with REQUIRE_VERIFIED_DOMAINS) its project does not hold the
 * route's domain verified now: its records went missing, or it deleted the domain (which another
 * project may hold since). Not taken: mail must not reach a project that lost the name, and a
 * temporary refusal lets the sender try again once the domain is verified (again, or by its new owner).
 */
export interface LapsedRoute {
  kind: 'lapsed';
  address: string;
}

export interface RecipientResolverOptions {
  db: Queryable;
  verp: Verp;
  /** BOUNCE_DOMAIN: `fbl@` it is the feedback-loop address. */
  bounceDomain: string;
  /** RETURN_PATH_LABEL: VERP addresses are also accepted at `<label>.<the domain the mail was sent from>`. */
  returnPathLabel?: string;
  /** REQUIRE_VERIFIED_DOMAINS: a route takes mail only while its project holds its domain verified. */
  requireVerifiedDomains?: boolean;
}

/**
 * Decides whether the MX accepts a recipient: a VERP return path whose MAC verifies and whose
 * recipient row exists, at BOUNCE_DOMAIN or at the return-path subdomain of the domain its mail
 * was sent from; `fbl@BOUNCE_DOMAIN`; or an address a route claims (exact, then without
 * `+tag`, then `*@domain`; postmaster at a routed domain, that domain's route). Postmaster bare
 * or at BOUNCE_DOMAIN is taken as `fbl@` is. Anything else is null, and is refused: never an open relay.
 *
 * Routes found are cached for ROUTE_CACHE_TTL_MS (a lookup per RCPT was half the MX's
 * PostgreSQL work); misses are never cached, so a route created a moment ago accepts mail at
 * once and nobody gets a permanent 550 from a stale cache. The cost: for up to 5 s after a
 * route is deleted, mail for it is still accepted and stored in its (former) project.
 */
export class RecipientResolver {
  private readonly fbl: string;
  private readonly routes = new Map<string, { route: RouteMatch; expiresAt: number }>();

  private readonly postmaster: string;

  constructor(private readonly options: RecipientResolverOptions) {
    this.fbl = `fbl@${options.bounceDomain}`.toLowerCase();
    this.postmaster = `postmaster@${options.bounceDomain}`.toLowerCase();
  }

  async resolve(address: string): Promise<Recipient | LapsedRoute | null> {
    const recipientId = this.options.verp.parseAny(address);
    if (recipientId) {
      const sent = await findRecipientProject(this.options.db, recipientId);
      return sent && this.isReturnPathOf(address, sent.fromAddress) ? { kind: 'verp', address, recipientId, projectId: sent.projectId } : null;
    }
    const lower = address.toLowerCase();
    if (lower === this.fbl) return { kind: 'fbl', address };
    // RFC 5321 §4.5.1: postmaster, bare or at the MX's own domain, is kept without a project
    // like a report to fbl@ (an operator's to read); at a routed domain, see findRoute.
    if (lower === 'postmaster' || lower === this.postmaster) return { kind: 'fbl', address };
    const route = await this.findRoute(address);
    if (!route) return null;
    if (this.options.requireVerifiedDomains && !route.domainVerified) return { kind: 'lapsed', address };
    return { kind: 'route', address, routeId: route.id, projectId: route.projectId };
  }

  /**
   * Whether a VERP address (its MAC verified) is at a return path its mail could have had:
   * BOUNCE_DOMAIN, or the return-path subdomain of the domain it was sent from, verified then.
   * Not whether that domain is verified now: a record gone missing or the domain deleted since
   * must not turn away bounces of mail already sent (a refused DSN is lost for good).
   */
  private isReturnPathOf(address: string, fromAddress: string): boolean {
    const host = address.slice(address.lastIndexOf('@') + 1).replace(/>\s*$/, '').trim().toLowerCase();
    if (host === this.options.bounceDomain.toLowerCase()) return true;
    const fromDomain = normalizeDomain(fromAddress.slice(fromAddress.lastIndexOf('@') + 1));
    return this.options.returnPathLabel !== undefined && fromDomain !== null && host === `${this.options.returnPathLabel.toLowerCase()}.${fromDomain}`;
  }

  /**
   * Keyed by the address as the client wrote it: a hit costs no normalization (punycode and
   * all, a few µs per RCPT); spellings of one address are cached apart, which is harmless.
   */
  private async findRoute(address: string): Promise<RouteMatch | undefined> {
    const now = Date.now();
    const cached = this.routes.get(address);
    if (cached && cached.expiresAt > now) return cached.route;
    const candidates = routeCandidates(address);
    if (candidates.length === 0) return undefined;
    const found = await findRoutesByMatch(this.options.db, candidates);
    // The most specific route whose project holds its domain, when that is required; a lapsed
    // one only when no other claims the address (it is then refused for now, not taken).
    const usable = this.options.requireVerifiedDomains ? found.find((r) => r.domainVerified) : found[0];
    // postmaster@ a domain with routes but none for it: the domain's route takes it (RFC 5321 §4.5.1).
    // The candidates are normalized (lower-cased, quotes that are only syntax dropped), the last `*@domain`.
    const isPostmaster = (candidates[0] as string).startsWith('postmaster@');
    const route = usable ?? found[0] ?? (isPostmaster ? await findPostmasterRoute(this.options.db, (candidates.at(-1) as string).slice(2)) : undefined);
    if (route) {
      if (this.routes.size >= ROUTE_CACHE_SIZE) this.routes.clear();
      this.routes.set(address, { route, expiresAt: now + ROUTE_CACHE_TTL_MS });
    } else {
      this.routes.delete(address);
    }
    return route;
  }
}
