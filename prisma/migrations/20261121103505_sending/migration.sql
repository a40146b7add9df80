-- CreateEnum
CREATE TYPE "DeliveryStatus" AS ENUM ('scheduled', 'queued', 'sent', 'delivery_delayed', 'delivered', 'bounced', 'complained', 'failed', 'suppressed', 'canceled');

-- CreateEnum
CREATE TYPE "RecipientKind" AS ENUM ('to', 'cc', 'bcc');

-- CreateEnum
CREATE TYPE "SuppressionReason" AS ENUM ('bounce', 'complaint');

-- CreateTable
CREATE TABLE "emails" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "from_header" TEXT NOT NULL,
    "from_address" TEXT NOT NULL,
    "to" TEXT[],
    "cc" TEXT[],
    "bcc" TEXT[],
    "reply_to" TEXT[],
    "subject" TEXT NOT NULL,
    "html" TEXT,
    "text" TEXT,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "tags" JSONB NOT NULL DEFAULT '[]',
    "scheduled_at" TIMESTAMP(3),
    "track_opens" BOOLEAN NOT NULL,
    "track_clicks" BOOLEAN NOT NULL,
    "message_id" TEXT NOT NULL,
    "status" "DeliveryStatus" NOT NULL,
    "last_event" TEXT,
    "next_attempt_at" TIMESTAMP(3),
    "lease_owner" TEXT,
    "lease_expires_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "emails_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_recipients" (
    "id" TEXT NOT NULL,
    "email_id" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "kind" "RecipientKind" NOT NULL,
    "status" "DeliveryStatus" NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3),
    "last_response" TEXT,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "email_recipients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_attachments" (
    "id" TEXT NOT NULL,
    "email_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "filename" TEXT NOT NULL,
    "content_type" TEXT,
    "content_id" TEXT,
    "content" BYTEA NOT NULL,

    CONSTRAINT "email_attachments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_events" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "email_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "recipient" TEXT,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "suppressions" (
    "project_id" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "reason" "SuppressionReason" NOT NULL,
    "detail" TEXT,
    "source_email_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "suppressions_pkey" PRIMARY KEY ("project_id","address")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "project_id" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "response" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("project_id","endpoint","key")
);

-- CreateIndex
CREATE INDEX "emails_project_id_id_idx" ON "emails"("project_id", "id");

-- CreateIndex
CREATE INDEX "emails_project_id_status_id_idx" ON "emails"("project_id", "status", "id");

-- CreateIndex
CREATE INDEX "emails_next_attempt_at_idx" ON "emails"("next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "email_recipients_email_id_address_key" ON "email_recipients"("email_id", "address");

-- CreateIndex
CREATE INDEX "email_attachments_email_id_position_idx" ON "email_attachments"("email_id", "position");

-- CreateIndex
CREATE INDEX "email_events_email_id_created_at_idx" ON "email_events"("email_id", "created_at");

-- CreateIndex
CREATE INDEX "email_events_project_id_id_idx" ON "email_events"("project_id", "id");

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");

-- AddForeignKey
ALTER TABLE "emails" ADD CONSTRAINT "emails_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_recipients" ADD CONSTRAINT "email_recipients_email_id_fkey" FOREIGN KEY ("email_id") REFERENCES "emails"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_attachments" ADD CONSTRAINT "email_attachments_email_id_fkey" FOREIGN KEY ("email_id") REFERENCES "emails"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_events" ADD CONSTRAINT "email_events_email_id_fkey" FOREIGN KEY ("email_id") REFERENCES "emails"("id") ON DELETE CASCADE ON UPDATE CASCADE;
