-- AlterTable
ALTER TABLE "email_events" ADD COLUMN     "source_key" TEXT;
