import { newId, serviceUnavailable, type Logger, type SendQueue } from '@mailroom/core';
import { inTransaction, insertEmails, type NewEmail, type Pool } from '@mailroom/db';
import { notifySender, type AcceptBatcher } from './accept-batcher';
import { claimIdempotencyKey, rememberIdempotentResponse, type IdempotencyRequest } from './idempotency';
import type { SendEmail } from './send-schema';

export interface AcceptDeps {
  pool: Pool;
  batcher: AcceptBatcher;
  sendQueue: SendQueue;
  logger: Logger;
}

/**
 * Stores sends durably and hands them to the sender; the answer comes only after the emails,
 * their recipients and attachments (and the idempotency record) are committed. Plain sends go
 * through the group commit; sends with an Idempotency-Key or attachments get a transaction of
 * their own. If the queue cannot be told after the commit, the reconciler finds the rows.
 */
export async function acceptEmails<Answer>(
  deps: AcceptDeps,
  projectId: string,
  sends: readonly SendEmail[],
  idempotency: IdempotencyRequest | null,
  answer: (ids: string[]) => Answer,
): Promise<Answer> {
  // Refuse before writing anything when the queue cannot be reached: nothing half-way.
  if (!deps.sendQueue.isReady()) throw serviceUnavailable();
  const emails = sends.map((send) => toNewEmail(projectId, send));
  const fresh = answer(emails.map((e) => e.id));

  if (!idempotency && emails.every((e) => e.attachments.length === 0)) {
    await deps.batcher.submit(emails);
    return fresh;
  }

  const result = await inTransaction(deps.pool, async (client) => {
    if (idempotency) {
      const repeated = await claimIdempotencyKey(client, projectId, idempotency);
      if (repeated !== null) return { answer: repeated as Answer, stored: false };
    }
    await insertEmails(client, emails);
    // The key, the body's hash and the answer commit with the emails, or not at all.
    if (idempotency) await rememberIdempotentResponse(client, projectId, idempotency, fresh);
    return { answer: fresh, stored: true };
  });
  // Not awaited, as for the group commit: the emails are committed, so the answer is due now. A
  // Redis that hangs would hold it for the enqueue's timeout; a failed enqueue is logged and
  // left to the reconciler.
  if (result.stored) void notifySender(deps.sendQueue, deps.logger, emails);
  return result.answer;
}

function toNewEmail(projectId: string, send: SendEmail): NewEmail {
  const id = newId('email');
  const text = (list: readonly { text: string }[] | undefined) => (list ?? []).map((m) => m.text);
  const status = send.scheduledAt !== undefined ? 'scheduled' : 'queued';
  const seen = new Set<string>();
  const recipients: NewEmail['recipients'] = [];
  for (const [kind, list] of [['to', send.to], ['cc', send.cc], ['bcc', send.bcc]] as const) {
    for (const { address } of list ?? []) {
      if (seen.has(address.toLowerCase())) continue;
      seen.add(address.toLowerCase());
      recipients.push({ id: newId('recipient'), address, kind });
    }
  }
  return {
    id,
    projectId,
    from: send.from.text,
    fromAddress: send.from.address,
    to: text(send.to),
    cc: text(send.cc),
    bcc: text(send.bcc),
    replyTo: text(send.replyTo),
    subject: send.subject,
    html: send.html ?? null,
    text: send.text ?? null,
    headers: send.headers ?? {},
    tags: send.tags ?? [],
    scheduledAt: send.scheduledAt ?? null,
    trackOpens: send.trackOpens ?? null,
    trackClicks: send.trackClicks ?? null,
    messageId: `${id}@${send.from.address.split('@')[1] ?? 'mailroom.local'}`,
    status,
    nextAttemptAt: send.scheduledAt ?? new Date(),
    recipients,
    attachments: (send.attachments ?? []).map((a) => ({
      id: newId('attachment'),
      filename: a.filename,
      contentType: a.contentType ?? null,
      contentId: a.contentId ?? null,
      content: a.content,
    })),
  };
}
