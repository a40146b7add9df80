import { conflict, isId, notFound, type DeliveryStatus } from '@mailroom/core';
import { findEmailIdsByRecipient, readLinkClicks, type Database, type Queryable } from '@mailroom/db';
import { pageArgs, type ListQuery } from '../../http/pagination';

const recipientSelect = {
  select: { address: true, kind: true, status: true, attempts: true, lastResponse: true, nextAttemptAt: true, opens: true, clicks: true, firstOpenedAt: true },
  orderBy: { id: 'asc' as const },
};

/**
 * One email of the project with its recipients and timeline (oldest event first), read in one
 * snapshot: an outcome commits its event and its recipient's status together, and two reads
 * could fall on either side of it (a timeline ending in email.bounced beside a recipient still
 * delivered).
 */
export async function getEmail(db: Database, projectId: string, id: string) {
  if (!isId('email', id)) throw notFound('email');
  const [email, events] = await db.$transaction(
    [
      db.email.findFirst({ where: { id, projectId }, include: { recipients: recipientSelect } }),
      // Events name their email without a relation (no foreign key on the outbox's hot path).
      db.emailEvent.findMany({ where: { emailId: id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    ],
    { isolationLevel: 'RepeatableRead' },
  );
  if (!email) throw notFound('email');
  return { ...email, events };
}

/** Clicks per link of one email of the project (404 for another project's or a missing email). */
export async function getLinkClicks(db: Database, pool: Queryable, projectId: string, id: string) {
  if (!isId('email', id)) throw notFound('email');
  const email = await db.email.findFirst({ where: { id, projectId }, select: { id: true } });
  if (!email) throw notFound('email');
  return readLinkClicks(pool, projectId, id);
}

export interface EmailListQuery extends ListQuery {
  status?: DeliveryStatus | undefined;
  /** A recipient address (to, cc or bcc), matched case-insensitively. */
  to?: string | undefined;
}

/** One page of the project's emails, newest first, optionally only those with a given status or recipient. */
export async function listEmails(db: Database, pool: Queryable, projectId: string, query: EmailListQuery) {
  const page = pageArgs(query);
  if (query.to === undefined) {
    return db.email.findMany({
      ...page,
      where: { ...page.where, projectId, ...(query.status ? { status: query.status } : {}) },
      include: { recipients: recipientSelect },
    });
  }
  const ids = await findEmailIdsByRecipient(pool, { projectId, address: query.to, status: query.status, before: query.after, limit: page.take });
  if (ids.length === 0) return [];
  return db.email.findMany({ where: { id: { in: ids }, projectId }, orderBy: page.orderBy, include: { recipients: recipientSelect } });
}

/**
 * Cancels a scheduled email that no worker has started. Anything else is 409 `conflict`.
 * The status check and the change are one statement, so a worker claiming it at the same
 * moment cannot both send and cancel.
 */
export async function cancelEmail(db: Database, projectId: string, id: string): Promise<void> {
  if (!isId('email', id)) throw notFound('email');
  await db.$transaction(async (tx) => {
    const { count } = await tx.email.updateMany({
      where: { id, projectId, status: 'scheduled', leaseOwner: null },
      data: { status: 'canceled', nextAttemptAt: null },
    });
    if (count === 0) {
      const exists = await tx.email.findFirst({ where: { id, projectId }, select: { status: true } });
      if (!exists) throw notFound('email');
      throw conflict(`Only scheduled emails can be canceled; this one is ${exists.status}.`);
    }
    await tx.emailRecipient.updateMany({ where: { emailId: id }, data: { status: 'canceled', nextAttemptAt: null } });
  });
}
