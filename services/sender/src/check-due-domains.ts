import type { DomainDnsSettings, DomainResolver, Logger } from '@mailroom/core';
import { checkDomain, type Pool, takeDueDomains } from '@mailroom/db';

export interface DueDomainChecks {
  pool: Pool;
  resolver: DomainResolver;
  settings: DomainDnsSettings;
  logger: Logger;
}

// Domains taken per run; the rest wait for the next tick.
const BATCH = 50;
// A taken domain's next check is pushed this far ahead, so a sender that dies mid-check leaves it due again soon.
const LEASE_SECONDS = 300;
// Domains looked up at once (each is a handful of DNS queries).
const PARALLEL = 5;

/**
 * The scheduled part of domain verification: takes the domains whose check is due (new ones at
 * once, then with backoff while records are missing, verified ones every 6 h) and looks each up.
 * Returns how many were checked and how many `domain.updated` events were appended.
 */
export async function checkDueDomains(deps: DueDomainChecks): Promise<{ checked: number; events: number }> {
  const ids = await takeDueDomains(deps.pool, BATCH, LEASE_SECONDS);
  let events = 0;
  const queue = [...ids];
  const worker = async () => {
    for (let id = queue.shift(); id; id = queue.shift()) {
      try {
        events += (await checkDomain(deps, id))?.events ?? 0;
      } catch (err) {
        // Due again when the lease ends.
        deps.logger.warn({ err, domainId: id }, 'domain check failed');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, ids.length) }, worker));
  if (ids.length > 0) deps.logger.info({ checked: ids.length, events }, 'sending domains checked');
  return { checked: ids.length, events };
}
