-- DropForeignKey
ALTER TABLE "received_emails" DROP CONSTRAINT "received_emails_project_id_fkey";

-- Without the foreign key (whose per-row check was about a fifth of the row's cost in
-- PostgreSQL, on the MX's path to the 250), deleting a project still deletes its received
-- mail (and so their attachments), as its ON DELETE CASCADE did: once per deleting statement.
-- The MX takes a copy's project id from a route, whose own foreign key keeps it real.
CREATE FUNCTION "received_emails_follow_projects"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "received_emails" WHERE "project_id" IN (SELECT "id" FROM "deleted_projects");
  RETURN NULL;
END
$$;

CREATE TRIGGER "received_emails_follow_projects" AFTER DELETE ON "projects"
  REFERENCING OLD TABLE AS "deleted_projects"
  FOR EACH STATEMENT EXECUTE FUNCTION "received_emails_follow_projects"();
