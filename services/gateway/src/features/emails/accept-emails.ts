import { newId, notFound, serviceUnavailable, type Logger, type SendQueue } from '@mailroom/core';
import type { Database, Prisma } from '@mailroom/db';
import { parseMailbox } from './addresses';
import { claimIdempotencyKey, rememberIdempotentResponse, type IdempotencyRequest } from './idempotency';
import type { SendEmail } from './send-schema';

export interface AcceptDeps {
  db: Database;
  sendQueue: SendQueue;
  logger: Logger;
}

interface NewEmailRows {
  email: Prisma.EmailCreateManyInput;
  recipients: Prisma.EmailRecipientCreateManyInput[];
  attachments: Prisma.EmailAttachmentCreateManyInput[];
}

/**
 * Stores sends durably and hands them to the sender. The answer is returned only after the
 * emails, their recipients and attachments (and the idempotency record) are committed; the
 * queue is told afterwards, and if that fails the reconciler finds the rows.
 */
export async function acceptEmails<Answer extends Prisma.InputJsonValue>(
  deps: AcceptDeps,
  projectId: string,
  sends: readonly SendEmail[],
  idempotency: IdempotencyRequest | null,
  answer: (ids: string[]) => Answer,
): Promise<Answer> {
  // Refuse before writing anything when the queue cannot be reached: nothing half-way.
  if (!deps.sendQueue.isReady()) throw serviceUnavailable();

  const rows: NewEmailRows[] = [];
  const result = await deps.db.$transaction(async (tx) => {
    if (idempotency) {
      const repeated = await claimIdempotencyKey(tx, projectId, idempotency);
      if (repeated !== null) return { answer: repeated as Answer, fresh: false };
    }
    const project = await tx.project.findUnique({ where: { id: projectId }, select: { trackOpens: true, trackClicks: true } });
    if (!project) throw notFound('project');
    for (const send of sends) rows.push(toRows(projectId, send, project));
    await tx.email.createMany({ data: rows.map((r) => r.email) });
    await tx.emailRecipient.createMany({ data: rows.flatMap((r) => r.recipients) });
    const attachments = rows.flatMap((r) => r.attachments);
    if (attachments.length > 0) await tx.emailAttachment.createMany({ data: attachments });
    const fresh = answer(rows.map((r) => r.email.id));
    // The key, the body's hash and the answer commit with the emails, or not at all.
    if (idempotency) await rememberIdempotentResponse(tx, projectId, idempotency, fresh);
    return { answer: fresh, fresh: true };
  });
  if (!result.fresh) return result.answer;

  await deps.sendQueue
    .enqueue(rows.map((r) => ({ emailId: r.email.id, dueAt: r.email.nextAttemptAt as Date })))
    .catch((err: unknown) => deps.logger.warn({ err, count: rows.length }, 'enqueue failed after commit; the reconciler will pick these up'));
  return result.answer;
}

function toRows(projectId: string, send: SendEmail, defaults: { trackOpens: boolean; trackClicks: boolean }): NewEmailRows {
  const id = newId('email');
  const from = parseMailbox(send.from);
  if (!from) throw new Error('from was validated as one mailbox');
  const scheduled = send.scheduledAt !== undefined;
  const status = scheduled ? 'scheduled' : 'queued';
  const seen = new Set<string>();
  const recipients: Prisma.EmailRecipientCreateManyInput[] = [];
  for (const [kind, list] of [['to', send.to], ['cc', send.cc], ['bcc', send.bcc]] as const) {
    for (const value of list ?? []) {
      const address = parseMailbox(value)?.address ?? value;
      if (seen.has(address.toLowerCase())) continue;
      seen.add(address.toLowerCase());
      recipients.push({ id: newId('recipient'), emailId: id, address, kind, status });
    }
  }
  return {
    email: {
      id,
      projectId,
      from: send.from,
      fromAddress: from.address,
      to: send.to,
      cc: send.cc ?? [],
      bcc: send.bcc ?? [],
      replyTo: send.replyTo ?? [],
      subject: send.subject,
      html: send.html ?? null,
      text: send.text ?? null,
      headers: send.headers ?? {},
      tags: send.tags ?? [],
      scheduledAt: send.scheduledAt ?? null,
      trackOpens: send.trackOpens ?? defaults.trackOpens,
      trackClicks: send.trackClicks ?? defaults.trackClicks,
      messageId: `${id}@${from.address.split('@')[1] ?? 'mailroom.local'}`,
      status,
      nextAttemptAt: send.scheduledAt ?? new Date(),
    },
    recipients,
    attachments: (send.attachments ?? []).map((a, position) => ({
      id: newId('attachment'),
      emailId: id,
      position,
      filename: a.filename,
      contentType: a.contentType ?? null,
      contentId: a.contentId ?? null,
      content: new Uint8Array(a.content),
    })),
  };
}
