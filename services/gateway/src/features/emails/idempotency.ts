import { createHash } from 'node:crypto';
import { MailroomError } from '@mailroom/core';
import { IDEMPOTENCY_RETENTION_HOURS, type PoolClient } from '@mailroom/db';
import type { Request } from 'express';
import { headerText, singleHeader } from '../../http/single-header';

export interface IdempotencyRequest {
  endpoint: 'emails' | 'emails/batch';
  key: string;
  /** SHA-256 of the canonical JSON body. */
  requestHash: string;
}

const MAX_KEY_CHARACTERS = 256;

/**
 * The request's Idempotency-Key, if any: sent once, 1 to 256 characters, else 400
 * `invalid_idempotency_key`. Characters are Unicode characters of the UTF-8 the client sent,
 * not bytes nor UTF-16 units, so 256 "é" or emoji are a valid key. HTTP strips the
 * surrounding whitespace, so a key of only spaces is empty.
 */
export function readIdempotencyKey(req: Request): string | null {
  const header = singleHeader(req, 'idempotency-key', () => invalidKey('The Idempotency-Key header must be sent once.'));
  if (header === undefined) return null;
  const key = headerText(header);
  const characters = [...key].length;
  if (characters < 1 || characters > MAX_KEY_CHARACTERS) {
    throw invalidKey(`The Idempotency-Key header must be 1 to ${MAX_KEY_CHARACTERS} characters.`);
  }
  return key;
}

function invalidKey(message: string): MailroomError {
  return new MailroomError('invalid_idempotency_key', message);
}

/** JSON with object keys sorted at every depth, so equal bodies hash equal whatever their key order. */
function canonicalJson(value: unknown): string {
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
 * `invalid_idempotent_request`. Keys are per project and endpoint and live IDEMPOTENCY_RETENTION_HOURS;
 * the sender's maintenance deletes older records.
 */
export async function claimIdempotencyKey(client: PoolClient, projectId: string, request: IdempotencyRequest): Promise<unknown | null> {
  const lock = createHash('sha256').update(`${projectId}\0${request.endpoint}\0${request.key}`).digest();
  const { rows: locked } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1::int, $2::int) AS locked', [
    lock.readInt32BE(0),
    lock.readInt32BE(4),
  ]);
  if (!locked[0]?.locked) {
    throw new MailroomError('concurrent_idempotent_requests', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  }
  const { rows } = await client.query<{ request_hash: string; response: unknown }>(
    `SELECT request_hash, response FROM idempotency_keys
      WHERE project_id = $1 AND endpoint = $2 AND key = $3 AND created_at > now() - make_interval(hours => $4)`,
    [projectId, request.endpoint, request.key, IDEMPOTENCY_RETENTION_HOURS],
  );
  const existing = rows[0];
  if (!existing) return null;
  if (existing.request_hash !== request.requestHash) {
    throw new MailroomError('invalid_idempotent_request', 'This Idempotency-Key was already used with a different request body.');
  }
  return existing.response;
}

/** Remembers the answer, in the same transaction as the emails it names (an expired record is replaced). */
export async function rememberIdempotentResponse(client: PoolClient, projectId: string, request: IdempotencyRequest, response: unknown): Promise<void> {
  await client.query(
    `INSERT INTO idempotency_keys (project_id, endpoint, key, request_hash, response, created_at)
     VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (project_id, endpoint, key)
     DO UPDATE SET request_hash = EXCLUDED.request_hash, response = EXCLUDED.response, created_at = EXCLUDED.created_at`,
    [projectId, request.endpoint, request.key, request.requestHash, JSON.stringify(response)],
  );
}
