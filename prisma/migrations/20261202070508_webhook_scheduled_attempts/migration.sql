-- A delivery's place in WEBHOOK_RETRY_SCHEDULE counts its scheduled attempts only: a failed
-- replay (manual) had used up one of the endpoint's automatic retries.
-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "scheduled_attempts" INTEGER NOT NULL DEFAULT 0;

-- Deliveries made before this column: their attempts less the manual ones in the log (one
-- pass over each table, not a look-up of the log per delivery).
UPDATE "webhook_deliveries" SET "scheduled_attempts" = "attempts" WHERE "attempts" > 0;
UPDATE "webhook_deliveries" d
   SET "scheduled_attempts" = GREATEST(0, d."attempts" - m."manual")
  FROM (SELECT "event_id", "webhook_id", count(*)::int AS "manual" FROM "webhook_attempts"
         WHERE "trigger" = 'manual' GROUP BY "event_id", "webhook_id") m
 WHERE d."event_id" = m."event_id" AND d."webhook_id" = m."webhook_id";
