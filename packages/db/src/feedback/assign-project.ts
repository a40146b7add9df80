import type { Queryable } from '../pool';

/**
 * Gives a feedback report received without a project (at `fbl@BOUNCE_DOMAIN`) the project of
 * the sent email it was matched to, so that project can read it (`GET /emails/received/{id}`).
 * A report that already has a project keeps it. Returns whether the row changed.
 */
export async function assignReceivedEmailProject(db: Queryable, receivedEmailId: string, projectId: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'mailroom-feedback-assign-project',
    text: `UPDATE received_emails SET project_id = $2 WHERE id = $1 AND project_id IS NULL AND kind = 'feedback'`,
    values: [receivedEmailId, projectId],
  });
  return (rowCount ?? 0) > 0;
}
