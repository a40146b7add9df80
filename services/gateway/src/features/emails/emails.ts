import { conflict, isId, notFound, type DeliveryStatus } from '@mailroom/core';
import type { Database } from '@mailroom/db';
import { pageArgs, type ListQuery } from '../../http/pagination';

const recipientSelect = { select: { address: true, status: true }, orderBy: { id: 'asc' as const } };

/** One email of the project with its recipients and timeline (oldest event first). */
export async function getEmail(db: Database, projectId: string, id: string) {
  if (!isId('email', id)) throw notFound('email');
  const email = await db.email.findFirst({
    where: { id, projectId },
    include: { recipients: recipientSelect, events: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
  });
  if (!email) throw notFound('email');
  return email;
}

export async function listEmails(db: Database, projectId: string, query: ListQuery & { status?: DeliveryStatus | undefined }) {
  const page = pageArgs(query);
  return db.email.findMany({
    ...page,
    where: { ...page.where, projectId, ...(query.status ? { status: query.status } : {}) },
    include: { recipients: recipientSelect },
  });
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
