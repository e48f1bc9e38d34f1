import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OpenAI-compatible route's `prompt` (issue 12, item 1), kept on the job so the worker passes it to
 * Whisper-family recognisers as their initial prompt, after the vocabulary. Cleared by the transcript purge.
 */
export class TranscriptionPrompt1795472000000 implements MigrationInterface {
  name = 'TranscriptionPrompt1795472000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "prompt" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "prompt"`);
  }
}
