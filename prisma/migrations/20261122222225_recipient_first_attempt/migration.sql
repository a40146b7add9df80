-- AlterTable
ALTER TABLE "email_recipients" ADD COLUMN     "first_attempt_at" TIMESTAMP(3);

-- GET /emails?to= finds a project's emails by recipient, case-insensitively. An expression
-- index, so Prisma's schema cannot state it; it is kept here by hand.
CREATE INDEX "email_recipients_lower_address_idx" ON "email_recipients"(lower("address"), "email_id");

-- Recipients attempted before this column existed: their first attempt is their email.sent event.
UPDATE "email_recipients" r
   SET "first_attempt_at" = (SELECT min(ev."created_at") FROM "email_events" ev
                              WHERE ev."email_id" = r."email_id" AND ev."recipient" = r."address" AND ev."type" = 'email.sent')
 WHERE r."attempts" > 0;
