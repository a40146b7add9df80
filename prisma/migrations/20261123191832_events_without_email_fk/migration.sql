-- DropForeignKey
ALTER TABLE "email_events" DROP CONSTRAINT "email_events_email_id_fkey";

-- DropIndex
DROP INDEX "email_events_position_key";

-- Without the foreign key (whose per-row check was a fifth of an event row's cost in
-- PostgreSQL), deleting an email still deletes its events, as its ON DELETE CASCADE did: once
-- per deleting statement, whatever deleted the emails (a project's own cascade included).
-- Every producer of an email's events holds the email's row lock while it appends, so a
-- deletion waits for it and then removes what it appended too.
CREATE FUNCTION "email_events_follow_emails"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "email_events" WHERE "email_id" IN (SELECT "id" FROM "deleted_emails");
  RETURN NULL;
END
$$;

CREATE TRIGGER "email_events_follow_emails" AFTER DELETE ON "emails"
  REFERENCING OLD TABLE AS "deleted_emails"
  FOR EACH STATEMENT EXECUTE FUNCTION "email_events_follow_emails"();
