import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workspace members with roles, invitations, and API-key scopes and allowed networks (issue 32).
 *
 * An existing workspace is upgraded as it was used: every user becomes the owner of the workspace they act
 * in (users.active_workspace_id), and every existing key keeps full rights (scope `admin`, the column's
 * default). test/e2e/members-migration.e2e-spec.ts runs this migration on a database left at the one before.
 */
export class Members1795906988396 implements MigrationInterface {
  name = 'Members1795906988396';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "workspace_invitations" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "email" character varying(320) NOT NULL, "role" character varying(16) NOT NULL, "token_hash" character(64) NOT NULL, "invited_by" uuid, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_on" TIMESTAMP WITH TIME ZONE NOT NULL, "accepted_on" TIMESTAMP WITH TIME ZONE, "revoked_on" TIMESTAMP WITH TIME ZONE, CONSTRAINT "chk_workspace_invitations_role" CHECK ("role" IN ('owner', 'admin', 'member', 'viewer')), CONSTRAINT "PK_525b9069dc828a8ee8fdc62c32c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_workspace_invitations_workspace" ON "workspace_invitations" ("workspace_id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_workspace_invitations_token" ON "workspace_invitations" ("token_hash") `,
    );
    await queryRunner.query(
      `CREATE TABLE "workspace_members" ("workspace_id" uuid NOT NULL, "user_id" uuid NOT NULL, "role" character varying(16) NOT NULL, "joined_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "chk_workspace_members_role" CHECK ("role" IN ('owner', 'admin', 'member', 'viewer')), CONSTRAINT "PK_4896b609c71ca5ad20ad662077b" PRIMARY KEY ("workspace_id", "user_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_workspace_members_user" ON "workspace_members" ("user_id") `);
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "scopes" text array NOT NULL DEFAULT '{admin}'`);
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "allowed_networks" text array`);
    await queryRunner.query(
      `ALTER TABLE "workspace_invitations" ADD CONSTRAINT "FK_cf5df369b7a86ea3cdf18c7b56d" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspace_members" ADD CONSTRAINT "FK_4a7c584ddfe855379598b5e20fd" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspace_members" ADD CONSTRAINT "FK_4e83431119fa585fc7aa8b817db" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `INSERT INTO "workspace_members" ("workspace_id", "user_id", "role", "joined_on")
       SELECT "active_workspace_id", "id", 'owner', "created_on" FROM "users" WHERE "active_workspace_id" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "workspace_members" DROP CONSTRAINT "FK_4e83431119fa585fc7aa8b817db"`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspace_members" DROP CONSTRAINT "FK_4a7c584ddfe855379598b5e20fd"`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspace_invitations" DROP CONSTRAINT "FK_cf5df369b7a86ea3cdf18c7b56d"`,
    );
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "allowed_networks"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "scopes"`);
    await queryRunner.query(`DROP INDEX "public"."idx_workspace_members_user"`);
    await queryRunner.query(`DROP TABLE "workspace_members"`);
    await queryRunner.query(`DROP INDEX "public"."uq_workspace_invitations_token"`);
    await queryRunner.query(`DROP INDEX "public"."idx_workspace_invitations_workspace"`);
    await queryRunner.query(`DROP TABLE "workspace_invitations"`);
  }
}
