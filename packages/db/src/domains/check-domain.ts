import { type DomainDnsSettings, type DomainResolver, expectedRecords, lookupRecord, nextRecordCheck, type RecordLookup } from '@mailroom/core';
import { appendEvents } from '../events';
import { inTransaction, type Pool, type PoolClient } from '../pool';
import { CLAIM_CHECK, DOMAIN_COLUMNS, type DomainRow, type DomainStatus, findDomain } from './domain-rows';
import { presentDomain, recordSource } from './present-domain';

export interface DomainCheckDeps {
  pool: Pool;
  /** `createResolver(DNS_SERVERS)`, or a test's. */
  resolver: DomainResolver;
  settings: DomainDnsSettings;
}

export interface DomainCheckResult {
  domain: DomainRow;
  /** `domain.updated` events appended (tell the events queue after this returns). */
  events: number;
}

// A domain not (or no longer) verified is looked at again after 1 min, 2, 4, … at most 6 h;
// a verified one every 6 h, so records that disappear are noticed within a quarter day.
const FIRST_RETRY_SECONDS = 60;
const MAX_RETRY_SECONDS = 6 * 3600;
const VERIFIED_RECHECK_SECONDS = 6 * 3600;
// The key used before a rotation stays published (and listed) this long for mail in flight.
const PREVIOUS_KEY_DAYS = 7;

/**
 * Looks every record of a domain up now (outside any transaction: DNS may be slow) and records
 * what was found in one short transaction: each record's state, the domain's status, the
 * verified claim on the name (exclusive: the first project to verify it holds it until its
 * records go), a rotation's completion, the next scheduled check, and a `domain.updated`
 * event when the status changed or a new key went into use. Null when it is not the project's
 * domain (`projectId` null: any project's, for the schedule).
 */
export async function checkDomain(deps: DomainCheckDeps, id: string, projectId: string | null = null): Promise<DomainCheckResult | null> {
  const before = await findDomain(deps.pool, projectId, id);
  if (!before) return null;
  const records = expectedRecords(recordSource(before), deps.settings);
  const lookups = new Map<string, RecordLookup>(await Promise.all(records.map(async (r) => [r.key, await lookupRecord(deps.resolver, r)] as const)));
  return inTransaction(deps.pool, (client) => recordCheck(client, id, lookups, deps.settings, new Date()));
}

async function recordCheck(client: PoolClient, id: string, lookups: Map<string, RecordLookup>, settings: DomainDnsSettings, now: Date): Promise<DomainCheckResult | null> {
  // Locked and read again: a rotation may have started while DNS answered.
  const row = await findDomain(client, null, id, { lock: true });
  if (!row) return null;
  const next: DomainRow = { ...row, checks: {} };
  for (const record of expectedRecords(recordSource(row), settings)) {
    const lookup = lookups.get(record.key);
    const previous = row.checks[record.key];
    const check = lookup ? nextRecordCheck(previous, lookup, now) : previous;
    if (check) next.checks[record.key] = check;
  }

  let rotated = false;
  if (next.nextDkimSelector && next.checks[`dkim:${next.nextDkimSelector}`]?.status === 'verified') {
    // The new key is published: sign with it from now on, keep the old one listed for mail in flight.
    Object.assign(next, {
      previousDkimSelector: row.dkimSelector,
      previousDkimPublicKey: row.dkimPublicKey,
      previousDkimUntil: new Date(now.getTime() + PREVIOUS_KEY_DAYS * 86_400_000),
      dkimSelector: row.nextDkimSelector,
      dkimPublicKey: row.nextDkimPublicKey,
      dkimPrivateKey: row.nextDkimPrivateKey,
      nextDkimSelector: null,
      nextDkimPublicKey: null,
      nextDkimPrivateKey: null,
    });
    rotated = true;
  } else if (next.previousDkimSelector && next.previousDkimUntil && next.previousDkimUntil <= now) {
    delete next.checks[`dkim:${next.previousDkimSelector}`];
    Object.assign(next, { previousDkimSelector: null, previousDkimPublicKey: null, previousDkimUntil: null });
  }

  const required = expectedRecords(recordSource(next), settings).filter((r) => r.required);
  const published = required.every((r) => next.checks[r.key]?.status === 'verified');
  let claimed = false;
  if (published) claimed = await claimName(client, row);
  else await releaseClaim(client, row.id);
  if (published && !claimed) next.checks[CLAIM_CHECK] = { status: 'failed', found: [], checkedAt: now.toISOString() };
  next.status = published && claimed ? 'verified' : row.status === 'pending' ? 'pending' : ('failed' satisfies DomainStatus);
  if (next.status === 'verified' && row.status !== 'verified') next.verifiedAt = now;
  next.failedChecks = next.status === 'verified' ? 0 : row.failedChecks + 1;
  const waitSeconds =
    next.status === 'verified' && !next.nextDkimSelector
      ? VERIFIED_RECHECK_SECONDS
      : Math.min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** Math.min(next.failedChecks, 20));
  next.nextCheckAt = new Date(now.getTime() + waitSeconds * 1000);
  next.lastCheckedAt = now;

  const saved = await saveCheck(client, next);
  const changed = saved.status !== row.status || rotated;
  if (changed) {
    await appendEvents(client, [
      { projectId: saved.projectId, subject: { kind: 'domain', domainId: saved.id }, type: 'domain.updated', data: presentDomain(saved, settings), createdAt: now },
    ]);
  }
  return { domain: saved, events: changed ? 1 : 0 };
}

/** Takes the verified claim on the name for this domain, unless another domain holds it. True when this one holds it. */
async function claimName(client: PoolClient, row: DomainRow): Promise<boolean> {
  // The primary key decides: of two projects verifying at once, the second waits, then finds the first's claim.
  await client.query({
    text: `INSERT INTO domain_claims (name, domain_id, created_at) VALUES ($1, $2, now() AT TIME ZONE 'UTC') ON CONFLICT (name) DO NOTHING`,
    values: [row.name, row.id],
  });
  const { rows } = await client.query<{ domain_id: string }>({ text: 'SELECT domain_id FROM domain_claims WHERE name = $1', values: [row.name] });
  return rows[0]?.domain_id === row.id;
}

async function releaseClaim(client: PoolClient, domainId: string): Promise<void> {
  await client.query({ text: 'DELETE FROM domain_claims WHERE domain_id = $1', values: [domainId] });
}

async function saveCheck(client: PoolClient, d: DomainRow): Promise<DomainRow> {
  const ts = (date: Date | null) => date?.toISOString() ?? null;
  const { rows } = await client.query<DomainRow>({
    text: `UPDATE domains
              SET status = $2::"DomainStatus", checks = $3::jsonb,
                  dkim_selector = $4, dkim_public_key = $5, dkim_private_key = $6,
                  next_dkim_selector = $7, next_dkim_public_key = $8, next_dkim_private_key = $9,
                  previous_dkim_selector = $10, previous_dkim_public_key = $11,
                  previous_dkim_until = $12::timestamptz AT TIME ZONE 'UTC', verified_at = $13::timestamptz AT TIME ZONE 'UTC',
                  last_checked_at = $14::timestamptz AT TIME ZONE 'UTC', next_check_at = $15::timestamptz AT TIME ZONE 'UTC',
                  failed_checks = $16, updated_at = now() AT TIME ZONE 'UTC'
            WHERE id = $1
        RETURNING ${DOMAIN_COLUMNS}`,
    values: [
      d.id, d.status, JSON.stringify(d.checks),
      d.dkimSelector, d.dkimPublicKey, d.dkimPrivateKey,
      d.nextDkimSelector, d.nextDkimPublicKey, d.nextDkimPrivateKey,
      d.previousDkimSelector, d.previousDkimPublicKey,
      ts(d.previousDkimUntil), ts(d.verifiedAt), ts(d.lastCheckedAt), ts(d.nextCheckAt), d.failedChecks,
    ],
  });
  return rows[0] as DomainRow;
}
