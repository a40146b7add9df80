import { routeCandidates, type Verp } from '@mailroom/core';
import { findRecipientProject, findRoutesByMatch, type Queryable } from '@mailroom/db';

/** Why the MX accepts a recipient (DESIGN §7). */
export type Recipient =
  | { kind: 'route'; address: string; routeId: string; projectId: string }
  | { kind: 'verp'; address: string; recipientId: string; projectId: string }
  | { kind: 'fbl'; address: string };

export interface RecipientResolverOptions {
  db: Queryable;
  verp: Verp;
  /** BOUNCE_DOMAIN: `fbl@` it is the feedback-loop address. */
  bounceDomain: string;
}

/**
 * Decides whether the MX accepts a recipient: a VERP return path whose MAC verifies and whose
 * recipient row exists, `fbl@BOUNCE_DOMAIN`, or an address a route claims (exact, then without
 * `+tag`, then `*@domain`). Anything else is null, and is refused: never an open relay.
 *
 * Routes are not cached: a lookup is one query on the unique index of `routes.match`, and a
 * cache would refuse mail (a permanent 550) for a route created moments ago, or deliver to a
 * project a route was just moved away from.
 */
export class RecipientResolver {
  private readonly fbl: string;

  constructor(private readonly options: RecipientResolverOptions) {
    this.fbl = `fbl@${options.bounceDomain}`.toLowerCase();
  }

  async resolve(address: string): Promise<Recipient | null> {
    const recipientId = this.options.verp.parse(address);
    if (recipientId) {
      const projectId = await findRecipientProject(this.options.db, recipientId);
      return projectId ? { kind: 'verp', address, recipientId, projectId } : null;
    }
    if (address.toLowerCase() === this.fbl) return { kind: 'fbl', address };
    const [route] = await findRoutesByMatch(this.options.db, routeCandidates(address));
    return route ? { kind: 'route', address, routeId: route.id, projectId: route.projectId } : null;
  }
}
