import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API keys belong to the workspace (issue 10, item 4): deleting the user who created a key keeps the key
 * (its user becomes null) instead of deleting it, and an operator may create a key without a user.
 */
export class ApiKeysOutliveTheirCreator1795462000000 implements MigrationInterface {
  name = 'ApiKeysOutliveTheirCreator1795462000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "FK_a3baee01d8408cd3c0f89a9a973"`);
    await queryRunner.query(`ALTER TABLE "api_keys" ALTER COLUMN "user_id" DROP NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "FK_a3baee01d8408cd3c0f89a9a973" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
  }

  /** Keys without a user cannot go back under NOT NULL: they are deleted, as the old cascade would have. */
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "FK_a3baee01d8408cd3c0f89a9a973"`);
    await queryRunner.query(`DELETE FROM "api_keys" WHERE "user_id" IS NULL`);
    await queryRunner.query(`ALTER TABLE "api_keys" ALTER COLUMN "user_id" SET NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "FK_a3baee01d8408cd3c0f89a9a973" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }
}
