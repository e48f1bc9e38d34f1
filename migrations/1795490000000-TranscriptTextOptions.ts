import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The text passes a job asks for (custom spelling, number formatting, profanity filter, PII redaction), kept
 * on the job so the worker applies them before the transcript is stored. Older rows (`{}`) asked for none.
 */
export class TranscriptTextOptions1795490000000 implements MigrationInterface {
  name = 'TranscriptTextOptions1795490000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "text_options" jsonb NOT NULL DEFAULT '{}'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "text_options"`);
  }
}
