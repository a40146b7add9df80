import { createHash } from 'node:crypto';
import { idTime } from '@mailroom/core';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_TIME = /^inb_([0-9A-HJKMNP-TV-Z]{10})[0-9A-HJKMNP-TV-Z]{16}$/;

/**
 * The `evt_` id of the `email.received` event of one received email and route: a ULID whose
 * time is the received email's and whose random part is a hash of (email, route). The same
 * pair always gets the same id, so however often a message is processed its events keep their
 * ids, and the outbox's primary key refuses a second copy.
 */
export function receivedEventId(receivedEmailId: string, routeId: string, createdAt: Date): string {
  const time = ULID_TIME.exec(receivedEmailId)?.[1] ?? idTime(createdAt.getTime());
  const digest = createHash('sha256').update(`${receivedEmailId}\0${routeId}`).digest();
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[(digest[i] as number) % 32];
  return `evt_${time}${random}`;
}
