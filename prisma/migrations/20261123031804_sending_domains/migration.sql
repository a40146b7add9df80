-- CreateEnum
CREATE TYPE "DomainStatus" AS ENUM ('pending', 'verified', 'failed');

-- AlterTable
ALTER TABLE "email_events" ADD COLUMN     "domain_id" TEXT;

-- CreateTable
CREATE TABLE "domains" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" "DomainStatus" NOT NULL DEFAULT 'pending',
    "verification_token" TEXT NOT NULL,
    "dkim_selector" TEXT NOT NULL,
    "dkim_public_key" TEXT NOT NULL,
    "dkim_private_key" TEXT NOT NULL,
    "next_dkim_selector" TEXT,
    "next_dkim_public_key" TEXT,
    "next_dkim_private_key" TEXT,
    "previous_dkim_selector" TEXT,
    "previous_dkim_public_key" TEXT,
    "previous_dkim_until" TIMESTAMP(3),
    "checks" JSONB NOT NULL DEFAULT '{}',
    "verified_at" TIMESTAMP(3),
    "last_checked_at" TIMESTAMP(3),
    "next_check_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "failed_checks" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "domains_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "domain_claims" (
    "name" TEXT NOT NULL,
    "domain_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "domain_claims_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "domains_project_id_id_idx" ON "domains"("project_id", "id");

-- CreateIndex
CREATE INDEX "domains_name_idx" ON "domains"("name");

-- CreateIndex
CREATE INDEX "domains_next_check_at_idx" ON "domains"("next_check_at");

-- CreateIndex
CREATE UNIQUE INDEX "domains_project_id_name_key" ON "domains"("project_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "domain_claims_domain_id_key" ON "domain_claims"("domain_id");

-- AddForeignKey
ALTER TABLE "domains" ADD CONSTRAINT "domains_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "domain_claims" ADD CONSTRAINT "domain_claims_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;
