import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory, ulid as ulidAt } from 'ulid';

/** Every id is a prefix and a ULID: unique, and sortable by creation time. */
export const ID_PREFIX = {
  project: 'proj',
  apiKey: 'key',
  email: 'em',
  receivedEmail: 'inb',
  webhook: 'wh',
  webhookAttempt: 'wha',
  route: 'rt',
  event: 'evt',
  user: 'usr',
  domain: 'dom',
  // Internal: never in the API, only inside VERP return paths.
  recipient: 'rcpt',
  attachment: 'att',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/**
 * ulid's default source asks the CSPRNG for one byte per character; this one draws the same
 * bytes from the CSPRNG 4 KiB at a time.
 */
function pooledRandom(): () => number {
  const pool = Buffer.alloc(4096);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    return (pool[next++] as number) / 256;
  };
}

const random = pooledRandom();
const ulid = monotonicFactory(random);
const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';
const patterns = new Map<IdKind, RegExp>(
  Object.entries(ID_PREFIX).map(([kind, prefix]) => [kind as IdKind, new RegExp(`^${prefix}_${ULID_PATTERN}$`)]),
);

export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${ulid()}`;
}

/** An id of that kind made at `time` (ms since the epoch), e.g. for data imported or backdated. */
export function newIdAt(kind: IdKind, time: number): string {
  return `${ID_PREFIX[kind]}_${ulidAt(time, random)}`;
}

/**
 * The smallest id of that kind made at `time`: every id below it was made earlier, so
 * `id < idFloor(kind, time)` selects by age through the primary key.
 */
export function idFloor(kind: IdKind, time: number): string {
  return `${ID_PREFIX[kind]}_${idTime(time)}${'0'.repeat(16)}`;
}

/** The 10 time characters an id made at `time` starts with (after its prefix). */
export function idTime(time: number): string {
  return encodeTime(time, 10);
}

/** True when `value` is a well-formed id of that kind. Lets lookups skip the database for junk. */
export function isId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && (patterns.get(kind)?.test(value) ?? false);
}
