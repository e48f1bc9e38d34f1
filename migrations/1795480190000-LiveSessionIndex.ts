import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 19: every request with a dashboard access token asks whether its sign-in (`sid`, the refresh-token
 * family) still has an unrevoked token. A partial index on the live tokens answers from the index alone, and
 * at once for a revoked family (which has no entries), whatever the number of rotations in the family.
 */
export class LiveSessionIndex1795480190000 implements MigrationInterface {
  name = 'LiveSessionIndex1795480190000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_refresh_tokens_live_family" ON "refresh_tokens" ("family_id", "user_id") WHERE "revoked_on" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_refresh_tokens_live_family"`);
  }
}
