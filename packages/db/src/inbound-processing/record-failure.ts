import type { Queryable } from '../pool';

// Postgres keeps error text short enough to read; a stack trace belongs in the log.
const MAX_ERROR_CHARS = 1_000;

/**
 * Counts a failed processing try of one received email and keeps why. Returns the attempts
 * made so far, or null when the email is gone or already processed.
 */
export async function recordProcessingFailure(db: Queryable, id: string, error: string): Promise<number | null> {
  const { rows } = await db.query<{ processing_attempts: number }>({
    name: 'mailroom-record-processing-failure',
    text: `UPDATE received_emails
              SET processing_attempts = processing_attempts + 1, processing_error = $2
            WHERE id = $1 AND processed_at IS NULL
        RETURNING processing_attempts`,
    values: [id, error.slice(0, MAX_ERROR_CHARS)],
  });
  return rows[0]?.processing_attempts ?? null;
}
