import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Client secrets of realtime sessions (POST /v1/realtime/client_secrets): hashed, short-lived, single-use, each
 * bound to its workspace and to the session configuration it was minted with.
 */
export class RealtimeClientSecrets1795741216796 implements MigrationInterface {
  name = 'RealtimeClientSecrets1795741216796';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "realtime_client_secrets" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "user_id" uuid, "secret_hash" character(64) NOT NULL, "session" jsonb NOT NULL, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_on" TIMESTAMP WITH TIME ZONE NOT NULL, "used_on" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_724f720ed506593e05d4f33cc7e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_realtime_client_secrets_workspace" ON "realtime_client_secrets" ("workspace_id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_realtime_client_secrets_hash" ON "realtime_client_secrets" ("secret_hash") `,
    );
    await queryRunner.query(
      `ALTER TABLE "realtime_client_secrets" ADD CONSTRAINT "FK_77fa131ac6e59ef8927669a4198" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "realtime_client_secrets" ADD CONSTRAINT "FK_0fa9d0b6d5e5772e5c7513a7a38" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "realtime_client_secrets" DROP CONSTRAINT "FK_0fa9d0b6d5e5772e5c7513a7a38"`,
    );
    await queryRunner.query(
      `ALTER TABLE "realtime_client_secrets" DROP CONSTRAINT "FK_77fa131ac6e59ef8927669a4198"`,
    );
    await queryRunner.query(`DROP INDEX "public"."uq_realtime_client_secrets_hash"`);
    await queryRunner.query(`DROP INDEX "public"."idx_realtime_client_secrets_workspace"`);
    await queryRunner.query(`DROP TABLE "realtime_client_secrets"`);
  }
}
