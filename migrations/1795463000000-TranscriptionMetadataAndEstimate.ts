import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 11 items 2 and 7: the caller's `metadata` (a JSON object of string values, `{}` when none) and the
 * estimated cost quoted at creation (micro-EUR; null when the upload states no duration), stored so a later
 * price change does not change the quote.
 */
export class TranscriptionMetadataAndEstimate1795463000000 implements MigrationInterface {
  name = 'TranscriptionMetadataAndEstimate1795463000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "metadata" jsonb NOT NULL DEFAULT '{}'`);
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "estimated_cost_micro" bigint`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "estimated_cost_micro"`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "metadata"`);
  }
}
