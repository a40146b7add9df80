import {
  conflict,
  type DomainDnsSettings,
  type DomainResolver,
  encryptSecret,
  type EventQueue,
  generateDkimKey,
  isId,
  type Logger,
  newId,
  notFound,
  randomToken,
} from '@mailroom/core';
import {
  checkDomain,
  deleteDomain,
  type DomainRow,
  findDomain,
  insertDomain,
  listDomains,
  type Pool,
  startDkimRotation,
} from '@mailroom/db';
import type { ListQuery } from '../../http/pagination';

/** What the domain endpoints need beyond the pool: built once in start-gateway.ts. */
export interface DomainServices {
  /** `deriveKey(SECRET_KEY, 'encryption')`: DKIM private keys are stored sealed with it. */
  encryptionKey: Buffer;
  /** `createResolver(DNS_SERVERS)`: what `POST /domains/{id}/verify` looks the records up with. */
  resolver: DomainResolver;
  settings: DomainDnsSettings;
  /** Told after a check appended `domain.updated`. */
  eventQueue: EventQueue;
  logger: Logger;
}

/** Adds a domain to the project with a new DKIM key and verification token; 409 when the project has it already. */
export async function createDomain(pool: Pool, services: DomainServices, projectId: string, name: string): Promise<DomainRow> {
  const key = await generateDkimKey();
  const domain = await insertDomain(pool, {
    id: newId('domain'),
    projectId,
    name,
    verificationToken: randomToken(24),
    dkimSelector: key.selector,
    dkimPublicKey: key.publicKey,
    dkimPrivateKey: encryptSecret(services.encryptionKey, key.privateKeyPem),
  });
  if (!domain) throw conflict(`The domain "${name}" is already in this project.`);
  return domain;
}

/** One domain of the project; another project's is 404 like a missing one. */
export async function getDomain(pool: Pool, projectId: string, id: string): Promise<DomainRow> {
  const domain = isId('domain', id) ? await findDomain(pool, projectId, id) : null;
  if (!domain) throw notFound('domain');
  return domain;
}

/** `limit + 1` domains of the project after the cursor, newest first (see `toPage`). */
export function listProjectDomains(pool: Pool, projectId: string, query: ListQuery): Promise<DomainRow[]> {
  return listDomains(pool, { projectId, before: query.after, limit: query.limit + 1 });
}

/** Deletes a domain: its mail is no longer signed, and its verified claim on the name is released. */
export async function removeDomain(pool: Pool, projectId: string, id: string): Promise<void> {
  if (!isId('domain', id) || !(await deleteDomain(pool, projectId, id))) throw notFound('domain');
}

/** Looks the domain's records up now and answers it as recorded. */
export async function verifyDomain(pool: Pool, services: DomainServices, projectId: string, id: string): Promise<DomainRow> {
  const result = isId('domain', id) ? await checkDomain({ pool, resolver: services.resolver, settings: services.settings }, id, projectId) : null;
  if (!result) throw notFound('domain');
  if (result.events > 0) {
    // A lost notice is found by the outbox reconciler; the check itself is committed.
    await services.eventQueue.notify().catch((err: unknown) => services.logger.warn({ err }, 'events notice failed'));
  }
  return result.domain;
}

/** Starts a DKIM key rotation: a new selector to publish; signing moves to it once its record is verified. */
export async function rotateDkim(pool: Pool, services: DomainServices, projectId: string, id: string): Promise<DomainRow> {
  if (!isId('domain', id)) throw notFound('domain');
  const key = await generateDkimKey();
  const domain = await startDkimRotation(pool, projectId, id, {
    selector: key.selector,
    publicKey: key.publicKey,
    privateKey: encryptSecret(services.encryptionKey, key.privateKeyPem),
  });
  if (!domain) throw notFound('domain');
  return domain;
}
