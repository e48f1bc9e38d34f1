import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Realtime sessions settle on every end (issue 31): their progress recorded with each lease renewal (audio
 * received, whether text was delivered, the final words delivered) for the reconciler and a deletion, and what a
 * paid session holds against the balance.
 */
export class RealtimeSessionSettlement1795888956970 implements MigrationInterface {
  name = 'RealtimeSessionSettlement1795888956970';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "live_audio_seconds" double precision`);
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "live_delivered" boolean`);
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "live_words" jsonb`);
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "live_reserved_micro" bigint`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "live_reserved_micro"`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "live_words"`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "live_delivered"`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "live_audio_seconds"`);
  }
}
