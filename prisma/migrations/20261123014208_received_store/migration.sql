-- DropIndex
DROP INDEX "received_emails_created_at_idx";

-- DropIndex
DROP INDEX "received_emails_message_id_idx";

-- Raw messages are mostly text: compressing them (lz4, fast) makes the write before the SMTP 250
-- smaller than storing them as they are. Servers built without lz4 keep pglz.
ALTER TABLE "received_emails" ALTER COLUMN "raw" SET STORAGE EXTENDED;
DO $$
BEGIN
  ALTER TABLE "received_emails" ALTER COLUMN "raw" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
  RAISE NOTICE 'lz4 is not available; raw messages are compressed with pglz';
END $$;
