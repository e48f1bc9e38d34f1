import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Realtime sessions are transcriptions too: `live_until` marks one (the serving instance renews it), keeps it out
 * of the worker queue's dispatch, and lets the reconciler finish a session whose instance died.
 */
export class RealtimeSessions1795490210000 implements MigrationInterface {
  name = 'RealtimeSessions1795490210000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "live_until" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "live_until"`);
  }
}
