import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair share of the workers (issue 10, item 8): a transcription is handed to the worker queue only while its
 * workspace has fewer than MAX_ACTIVE_JOBS_PER_WORKSPACE handed-over open jobs; `dispatched_at` records the
 * hand-over. Open jobs of an older release are all in the worker queue already, so they count as handed over.
 */
export class FairShareDispatch1795459672708 implements MigrationInterface {
  name = 'FairShareDispatch1795459672708';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "dispatched_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `UPDATE "transcriptions" SET "dispatched_at" = now() WHERE "status" IN ('queued', 'processing')`,
    );
    // The dispatcher's questions (how many are handed over, which waits next) only look at open jobs.
    await queryRunner.query(
      `CREATE INDEX "idx_transcriptions_open_by_workspace" ON "transcriptions" ("workspace_id", "created_on") WHERE status IN ('queued', 'processing')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_transcriptions_open_by_workspace"`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "dispatched_at"`);
  }
}
