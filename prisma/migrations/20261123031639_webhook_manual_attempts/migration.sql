-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "manual" BOOLEAN NOT NULL DEFAULT false;
