import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-workspace retention (issue 11, item 4): days to keep audio and transcripts (null: kept), and on each
 * transcription when the purge removed its audio and its text.
 */
export class Retention1795465000000 implements MigrationInterface {
  name = 'Retention1795465000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspaces" ADD "audio_retention_days" integer`);
    await queryRunner.query(`ALTER TABLE "workspaces" ADD "transcript_retention_days" integer`);
    await queryRunner.query(
      `ALTER TABLE "workspaces" ADD CONSTRAINT "chk_workspaces_retention_days" CHECK ((audio_retention_days IS NULL OR audio_retention_days >= 0) AND (transcript_retention_days IS NULL OR transcript_retention_days >= 0))`,
    );
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "audio_deleted_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `ALTER TABLE "transcriptions" ADD "transcript_deleted_at" TIMESTAMP WITH TIME ZONE`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "transcript_deleted_at"`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "audio_deleted_at"`);
    await queryRunner.query(`ALTER TABLE "workspaces" DROP CONSTRAINT "chk_workspaces_retention_days"`);
    await queryRunner.query(`ALTER TABLE "workspaces" DROP COLUMN "transcript_retention_days"`);
    await queryRunner.query(`ALTER TABLE "workspaces" DROP COLUMN "audio_retention_days"`);
  }
}
