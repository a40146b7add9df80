import { newId } from '@mailroom/core';
import type { ReceivedCopy } from '@mailroom/db';
import type { Recipient } from './resolve-recipient';

/**
 * The rows one message is stored as (DESIGN §7): one per project its route recipients belong
 * to, each with only that project's recipients and its matched routes in RCPT order; one
 * feedback row per VERP recipient, in the project of the email it names; one feedback row
 * without a project for `fbl@`.
 */
export function buildCopies(recipients: readonly Recipient[]): ReceivedCopy[] {
  const copies: ReceivedCopy[] = [];
  const byProject = new Map<string, ReceivedCopy>();
  for (const r of recipients) {
    if (r.kind === 'route') {
      let copy = byProject.get(r.projectId);
      if (!copy) {
        copy = { id: newId('receivedEmail'), projectId: r.projectId, kind: 'route', routeIds: [], feedbackRecipientId: null, rcptTo: [] };
        byProject.set(r.projectId, copy);
        copies.push(copy);
      }
      copy.rcptTo.push(r.address);
      if (!copy.routeIds.includes(r.routeId)) copy.routeIds.push(r.routeId);
    } else {
      copies.push({
        id: newId('receivedEmail'),
        projectId: r.kind === 'verp' ? r.projectId : null,
        kind: 'feedback',
        routeIds: [],
        feedbackRecipientId: r.kind === 'verp' ? r.recipientId : null,
        rcptTo: [r.address],
      });
    }
  }
  return copies;
}
