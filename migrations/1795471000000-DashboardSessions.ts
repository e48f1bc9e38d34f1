import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dashboard sign-in (issue 13): an optional password hash per user, rotating refresh tokens grouped in
 * families (reuse of a rotated token revokes the family), and a name and last use for API keys.
 */
export class DashboardSessions1795471000000 implements MigrationInterface {
  name = 'DashboardSessions1795471000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "password_hash" character varying(255)`);
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "name" character varying(100) NOT NULL DEFAULT ''`);
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "last_used_on" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE TABLE "refresh_tokens" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "user_id" uuid NOT NULL, "family_id" uuid NOT NULL, "token_hash" character(64) NOT NULL, "expires_on" TIMESTAMP WITH TIME ZONE NOT NULL, "rotated_on" TIMESTAMP WITH TIME ZONE, "revoked_on" TIMESTAMP WITH TIME ZONE, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_refresh_tokens" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_refresh_tokens_hash" ON "refresh_tokens" ("token_hash") `,
    );
    await queryRunner.query(`CREATE INDEX "idx_refresh_tokens_family" ON "refresh_tokens" ("family_id") `);
    await queryRunner.query(
      `ALTER TABLE "refresh_tokens" ADD CONSTRAINT "FK_refresh_tokens_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "refresh_tokens"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "last_used_on"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "name"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "password_hash"`);
  }
}
