import { MigrationInterface, QueryRunner } from 'typeorm';

/** Single sign-on (issue 32): each workspace's OpenID provider, the identities it vouched for, its sign-ins. */
export class SingleSignOn1795919094059 implements MigrationInterface {
  name = 'SingleSignOn1795919094059';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sso_connections" ("workspace_id" uuid NOT NULL, "issuer" character varying(2048) NOT NULL, "client_id" character varying(255) NOT NULL, "client_secret_encrypted" text NOT NULL, "allowed_domains" text array NOT NULL, "default_role" character varying(16) NOT NULL, "sso_required" boolean NOT NULL, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "chk_sso_connections_role" CHECK ("default_role" IN ('admin', 'member', 'viewer')), CONSTRAINT "PK_44aee9e5246c0cd74085e4cbd3d" PRIMARY KEY ("workspace_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "sso_identities" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "issuer" character varying(2048) NOT NULL, "subject" character varying(255) NOT NULL, "user_id" uuid NOT NULL, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a8d11d478e6dc2743d407a7456a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_sso_identities_user" ON "sso_identities" ("user_id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_sso_identities_subject" ON "sso_identities" ("workspace_id", "issuer", "subject") `,
    );
    await queryRunner.query(
      `CREATE TABLE "sso_sign_ins" ("family_id" uuid NOT NULL, "user_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "provider_refresh_token_encrypted" text, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1c4b4f5e9f3ed23de3de3ec7ed2" PRIMARY KEY ("family_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_sso_sign_ins_user" ON "sso_sign_ins" ("user_id") `);
    await queryRunner.query(`CREATE INDEX "idx_sso_sign_ins_workspace" ON "sso_sign_ins" ("workspace_id") `);
    await queryRunner.query(
      `ALTER TABLE "sso_connections" ADD CONSTRAINT "FK_44aee9e5246c0cd74085e4cbd3d" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_identities" ADD CONSTRAINT "FK_4886e92ada088116579a11643cc" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_identities" ADD CONSTRAINT "FK_17b0ed9f37917807a7072f71f96" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_sign_ins" ADD CONSTRAINT "FK_c3f5f9bc96bce8818ff45ef0e56" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_sign_ins" ADD CONSTRAINT "FK_f05c287b322587153635d696c8e" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sso_sign_ins" DROP CONSTRAINT "FK_f05c287b322587153635d696c8e"`);
    await queryRunner.query(`ALTER TABLE "sso_sign_ins" DROP CONSTRAINT "FK_c3f5f9bc96bce8818ff45ef0e56"`);
    await queryRunner.query(`ALTER TABLE "sso_identities" DROP CONSTRAINT "FK_17b0ed9f37917807a7072f71f96"`);
    await queryRunner.query(`ALTER TABLE "sso_identities" DROP CONSTRAINT "FK_4886e92ada088116579a11643cc"`);
    await queryRunner.query(`ALTER TABLE "sso_connections" DROP CONSTRAINT "FK_44aee9e5246c0cd74085e4cbd3d"`);
    await queryRunner.query(`DROP INDEX "public"."idx_sso_sign_ins_workspace"`);
    await queryRunner.query(`DROP INDEX "public"."idx_sso_sign_ins_user"`);
    await queryRunner.query(`DROP TABLE "sso_sign_ins"`);
    await queryRunner.query(`DROP INDEX "public"."uq_sso_identities_subject"`);
    await queryRunner.query(`DROP INDEX "public"."idx_sso_identities_user"`);
    await queryRunner.query(`DROP TABLE "sso_identities"`);
    await queryRunner.query(`DROP TABLE "sso_connections"`);
  }
}
