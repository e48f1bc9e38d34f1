import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (audit_events) and the networks each API key was used from (api_key_networks).
 *
 * audit_events is append-only in the database, whatever the application does: a trigger refuses UPDATE,
 * DELETE and TRUNCATE, and sets `at` to the inserting transaction's time on INSERT (an event cannot be
 * backdated). The one DELETE it lets through is the retention purge's, run inside the function
 * audit_events_purge(retention_days, batch_size): the trigger reads the call stack (PG_CONTEXT) and allows a
 * DELETE only when that function issued it. The function deletes only events older than `retention_days`
 * (at least 1) by the database's clock. What this does not stop: a role that may alter the table or define
 * functions (the table's owner, a superuser) can drop the trigger; run the service as a role that owns
 * nothing for a log that resists its own database credentials (docs/decisions.md, "Audit log").
 */
/** The purge's DELETE, on one line: the trigger recognises it by its exact text in the call stack. */
const PURGE_STATEMENT =
  'DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE at < now() - make_interval(days => retention_days) ORDER BY at LIMIT batch_size)';

export class AuditLog1795887965496 implements MigrationInterface {
  name = 'AuditLog1795887965496';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit_events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "action" character varying(64) NOT NULL, "actor_type" character varying(16) NOT NULL, "actor_user_id" uuid, "actor_api_key_id" uuid, "actor_credential" character varying(16), "client_ip" character varying(64), "request_id" character varying(128), "target_type" character varying(32), "target_id" uuid, "before" jsonb, "after" jsonb, "details" jsonb, CONSTRAINT "PK_audit_events" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_audit_events_at" ON "audit_events" ("at") `);
    await queryRunner.query(
      `CREATE INDEX "idx_audit_events_workspace_actor_key" ON "audit_events" ("workspace_id", "actor_api_key_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_audit_events_workspace_actor_user" ON "audit_events" ("workspace_id", "actor_user_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_audit_events_workspace_target" ON "audit_events" ("workspace_id", "target_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_audit_events_workspace_at" ON "audit_events" ("workspace_id", "at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "api_key_networks" ("api_key_id" uuid NOT NULL, "network" character varying(64) NOT NULL, "first_seen_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_api_key_networks" PRIMARY KEY ("api_key_id", "network"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "api_key_networks" ADD CONSTRAINT "FK_api_key_networks_api_key" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        stack text;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          NEW.at := now();
          RETURN NEW;
        END IF;
        IF TG_OP = 'DELETE' THEN
          -- Line 1 of the stack is this trigger; what fired it must be the purge's own DELETE (line 2, its exact
          -- text), run by the purge function itself (line 3): the same text from a DO block, or a statement
          -- that merely mentions the function, is refused.
          GET DIAGNOSTICS stack = PG_CONTEXT;
          IF split_part(stack, E'\\n', 2) = 'SQL statement "${PURGE_STATEMENT}"'
             AND split_part(stack, E'\\n', 3) LIKE 'PL/pgSQL function audit_events_purge(integer,integer) line % at SQL statement' THEN
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP
          USING ERRCODE = 'insufficient_privilege',
                HINT = 'Events leave the table only through audit_events_purge (the retention purge).';
      END
    $$`);
    await queryRunner.query(
      `CREATE TRIGGER "audit_events_append_only" BEFORE INSERT OR UPDATE OR DELETE ON "audit_events" FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events" FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`,
    );
    await queryRunner.query(`CREATE FUNCTION audit_events_purge(retention_days integer, batch_size integer) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        deleted integer;
      BEGIN
        IF retention_days IS NULL OR retention_days < 1 THEN
          RAISE EXCEPTION 'audit_events_purge: retention_days must be at least 1 (got %)', retention_days;
        END IF;
        ${PURGE_STATEMENT};
        GET DIAGNOSTICS deleted = ROW_COUNT;
        RETURN deleted;
      END
    $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION audit_events_purge(integer, integer)`);
    await queryRunner.query(`DROP TRIGGER "audit_events_no_truncate" ON "audit_events"`);
    await queryRunner.query(`DROP TRIGGER "audit_events_append_only" ON "audit_events"`);
    await queryRunner.query(`DROP FUNCTION audit_events_append_only()`);
    await queryRunner.query(`ALTER TABLE "api_key_networks" DROP CONSTRAINT "FK_api_key_networks_api_key"`);
    await queryRunner.query(`DROP TABLE "api_key_networks"`);
    await queryRunner.query(`DROP INDEX "public"."idx_audit_events_workspace_at"`);
    await queryRunner.query(`DROP INDEX "public"."idx_audit_events_workspace_target"`);
    await queryRunner.query(`DROP INDEX "public"."idx_audit_events_workspace_actor_user"`);
    await queryRunner.query(`DROP INDEX "public"."idx_audit_events_workspace_actor_key"`);
    await queryRunner.query(`DROP INDEX "public"."idx_audit_events_at"`);
    await queryRunner.query(`DROP TABLE "audit_events"`);
  }
}
