-- CreateEnum
CREATE TYPE "ReceivedKind" AS ENUM ('route', 'feedback');

-- CreateTable
CREATE TABLE "routes" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "match" TEXT NOT NULL,
    "name" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "routes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "received_emails" (
    "id" TEXT NOT NULL,
    "project_id" TEXT,
    "kind" "ReceivedKind" NOT NULL,
    "route_ids" TEXT[],
    "feedback_recipient_id" TEXT,
    "mail_from" TEXT NOT NULL,
    "rcpt_to" TEXT[],
    "remote_address" TEXT,
    "helo" TEXT,
    "raw" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,
    "processed_at" TIMESTAMP(3),
    "processing_attempts" INTEGER NOT NULL DEFAULT 0,
    "processing_error" TEXT,
    "from_address" JSONB,
    "to" JSONB NOT NULL DEFAULT '[]',
    "cc" JSONB NOT NULL DEFAULT '[]',
    "reply_to" JSONB NOT NULL DEFAULT '[]',
    "subject" TEXT,
    "text" TEXT,
    "html" TEXT,
    "text_reply" TEXT,
    "headers" JSONB NOT NULL DEFAULT '[]',
    "message_id" TEXT,
    "in_reply_to" TEXT,
    "references" TEXT[],
    "date" TIMESTAMP(3),
    "authentication" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "received_emails_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "received_attachments" (
    "id" TEXT NOT NULL,
    "received_email_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "filename" TEXT,
    "content_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "content_id" TEXT,
    "disposition" TEXT,
    "content" BYTEA NOT NULL,

    CONSTRAINT "received_attachments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "routes_match_key" ON "routes"("match");

-- CreateIndex
CREATE INDEX "routes_project_id_id_idx" ON "routes"("project_id", "id");

-- CreateIndex
CREATE INDEX "received_emails_project_id_id_idx" ON "received_emails"("project_id", "id");

-- CreateIndex
CREATE INDEX "received_emails_processed_at_created_at_idx" ON "received_emails"("processed_at", "created_at");

-- CreateIndex
CREATE INDEX "received_emails_created_at_idx" ON "received_emails"("created_at");

-- CreateIndex
CREATE INDEX "received_emails_message_id_idx" ON "received_emails"("message_id");

-- CreateIndex
CREATE INDEX "received_attachments_received_email_id_position_idx" ON "received_attachments"("received_email_id", "position");

-- AddForeignKey
ALTER TABLE "routes" ADD CONSTRAINT "routes_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "received_emails" ADD CONSTRAINT "received_emails_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "received_attachments" ADD CONSTRAINT "received_attachments_received_email_id_fkey" FOREIGN KEY ("received_email_id") REFERENCES "received_emails"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Raw messages and attachment bytes are mostly already compressed or encoded; skipping TOAST
-- compression keeps the store before the SMTP 250 cheap (the schema engine does not model this).
ALTER TABLE "received_emails" ALTER COLUMN "raw" SET STORAGE EXTERNAL;
ALTER TABLE "received_attachments" ALTER COLUMN "content" SET STORAGE EXTERNAL;
