import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Multichannel uploads: the channels of the file recognised one by one (null: mixed to mono and diarized, as
 * before). Billing multiplies a multichannel job's minutes by it.
 */
export class TranscriptionChannels1795490000002 implements MigrationInterface {
  name = 'TranscriptionChannels1795490000002';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "channels" smallint`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "channels"`);
  }
}
