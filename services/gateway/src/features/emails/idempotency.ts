import { createHash } from 'node:crypto';
import { MailroomError } from '@mailroom/core';
import type { Prisma } from '@mailroom/db';

const RETENTION_HOURS = 24;

export interface IdempotencyRequest {
  endpoint: 'emails' | 'emails/batch';
  key: string;
  /** SHA-256 of the canonical JSON body. */
  requestHash: string;
}

/** The Idempotency-Key header, if any: 1 to 256 characters, else 400 `invalid_idempotency_key`. */
export function readIdempotencyKey(header: string | undefined): string | null {
  if (header === undefined) return null;
  if (header.length < 1 || header.length > 256) {
    throw new MailroomError('invalid_idempotency_key', 'The Idempotency-Key header must be 1 to 256 characters.');
  }
  return header;
}

/** JSON with object keys sorted at every depth, so equal bodies hash equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function hashRequest(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/**
 * Inside the send transaction: takes the key's lock (another request holding it is 409
 * `concurrent_idempotent_requests`), then returns the remembered answer of an earlier request
 * with the same key, or null when this request is new. A different body is 409
 * `invalid_idempotent_request`. Keys are per project and endpoint and live 24 hours.
 */
export async function claimIdempotencyKey(tx: Prisma.TransactionClient, projectId: string, request: IdempotencyRequest): Promise<unknown | null> {
  const lock = createHash('sha256').update(`${projectId}\0${request.endpoint}\0${request.key}`).digest();
  const [row] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(${lock.readInt32BE(0)}::int, ${lock.readInt32BE(4)}::int) AS locked`;
  if (!row?.locked) {
    throw new MailroomError('concurrent_idempotent_requests', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  }
  const existing = await tx.idempotencyKey.findUnique({
    where: { projectId_endpoint_key: { projectId, endpoint: request.endpoint, key: request.key } },
  });
  if (!existing || existing.createdAt.getTime() < Date.now() - RETENTION_HOURS * 3600_000) return null;
  if (existing.requestHash !== request.requestHash) {
    throw new MailroomError('invalid_idempotent_request', 'This Idempotency-Key was already used with a different request body.');
  }
  return existing.response;
}

/** Remembers the answer, in the same transaction as the emails it names. */
export async function rememberIdempotentResponse(
  tx: Prisma.TransactionClient,
  projectId: string,
  request: IdempotencyRequest,
  response: Prisma.InputJsonValue,
): Promise<void> {
  const data = { requestHash: request.requestHash, response, createdAt: new Date() };
  await tx.idempotencyKey.upsert({
    where: { projectId_endpoint_key: { projectId, endpoint: request.endpoint, key: request.key } },
    create: { projectId, endpoint: request.endpoint, key: request.key, ...data },
    update: data,
  });
}
