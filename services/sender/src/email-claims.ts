import type { Database } from '@mailroom/db';

/**
 * A worker's claim on an email, held in PostgreSQL: the lease lasts LEASE_SECONDS and is
 * renewed while the worker works. A claim is taken only on a due email whose lease is free or
 * expired, so two workers never work on one email at once, and a dead worker's email is
 * picked up again once its lease runs out.
 */
export class EmailClaims {
  constructor(private readonly db: Database, private readonly owner: string, private readonly leaseSeconds: number) {}

  /** Claims the email if it is due and unclaimed; a scheduled email becomes queued. */
  async claim(emailId: string): Promise<boolean> {
    const claimed = await this.db.$executeRaw`
      UPDATE emails
         SET lease_owner = ${this.owner},
             lease_expires_at = now() + make_interval(secs => ${this.leaseSeconds}),
             status = CASE WHEN status = 'scheduled' THEN 'queued'::"DeliveryStatus" ELSE status END,
             updated_at = now()
       WHERE id = ${emailId}
         AND next_attempt_at IS NOT NULL
         AND next_attempt_at <= now() + interval '1 second'
         AND (lease_expires_at IS NULL OR lease_expires_at < now())`;
    if (claimed === 0) return false;
    await this.db.emailRecipient.updateMany({ where: { emailId, status: 'scheduled' }, data: { status: 'queued' } });
    return true;
  }

  async renew(emailId: string): Promise<boolean> {
    const renewed = await this.db.$executeRaw`
      UPDATE emails SET lease_expires_at = now() + make_interval(secs => ${this.leaseSeconds})
       WHERE id = ${emailId} AND lease_owner = ${this.owner}`;
    return renewed > 0;
  }

  /**
   * Gives the email back, due again at the earliest next attempt of its unfinished recipients
   * (null when none is left; a recipient not yet attempted counts as due now). Returns that time.
   */
  async release(emailId: string): Promise<Date | null> {
    const rows = await this.db.$queryRaw<{ next_attempt_at: Date | null }[]>`
      UPDATE emails
         SET lease_owner = NULL,
             lease_expires_at = NULL,
             next_attempt_at = (
               SELECT min(coalesce(next_attempt_at, now())) FROM email_recipients
                WHERE email_id = ${emailId} AND status IN ('queued', 'sent', 'delivery_delayed')
             ),
             updated_at = now()
       WHERE id = ${emailId} AND lease_owner = ${this.owner}
      RETURNING next_attempt_at`;
    return rows[0]?.next_attempt_at ?? null;
  }
}
