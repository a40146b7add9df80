-- The event outbox for every subject (docs/event-outbox.md). Existing rows keep their ids and
-- get positions and the migration's transaction id, so a reader from the start sees them first.
-- AlterTable
ALTER TABLE "email_events" ADD COLUMN     "position" BIGSERIAL NOT NULL,
ADD COLUMN     "received_email_id" TEXT,
ADD COLUMN     "webhook_id" TEXT,
ADD COLUMN     "xact_id" xid8 NOT NULL DEFAULT pg_current_xact_id(),
ALTER COLUMN "email_id" DROP NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "email_events_position_key" ON "email_events"("position");

-- CreateIndex
CREATE INDEX "email_events_xact_id_position_idx" ON "email_events"("xact_id", "position");


