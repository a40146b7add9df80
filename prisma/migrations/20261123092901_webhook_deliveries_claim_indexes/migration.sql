-- DropIndex
DROP INDEX "webhook_deliveries_state_next_attempt_at_idx";

-- DropIndex
DROP INDEX "webhook_deliveries_webhook_id_state_created_at_idx";

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhook_id_created_at_idx" ON "webhook_deliveries"("webhook_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_next_attempt_at_idx" ON "webhook_deliveries"("next_attempt_at");

-- Room on each page for a claim's update (lease_until, updated_at: no indexed column) to stay on
-- its page as a HOT update, with no new index entries: at 70 half the claims found room, at 50
-- all of them (the attempt's update then fills the page). Applies to pages written from now on.
ALTER TABLE "webhook_deliveries" SET (fillfactor = 50);
