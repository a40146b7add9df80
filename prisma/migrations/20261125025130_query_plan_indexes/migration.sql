-- Found by EXPLAIN over 60,000 suppressions and 295,000 attempts (packages/db/src/query-plans.test.ts):
-- GET /suppressions sorted the project's every suppression for each page; the attempt log's
-- `success` filter and replay's newest failure walked the whole log by primary key when the
-- endpoint had few attempts of that outcome.
-- CreateIndex
CREATE INDEX "suppressions_project_id_created_at_address_idx" ON "suppressions"("project_id", "created_at" DESC, "address");

-- CreateIndex
CREATE INDEX "webhook_attempts_webhook_id_success_id_idx" ON "webhook_attempts"("webhook_id", "success", "id");
