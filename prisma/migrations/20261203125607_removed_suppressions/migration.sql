-- CreateTable
CREATE TABLE "removed_suppressions" (
    "project_id" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "removed_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "removed_suppressions_pkey" PRIMARY KEY ("project_id","address")
);

-- CreateIndex
CREATE INDEX "removed_suppressions_removed_at_idx" ON "removed_suppressions"("removed_at");
