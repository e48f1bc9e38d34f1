import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Structured logs (issue 12, item 3): the request id of the upload on its transcription, and of the work that
 * caused a webhook event on the event, so the job and every delivery log with it (and send it as X-Request-Id).
 */
export class RequestIds1795470000000 implements MigrationInterface {
  name = 'RequestIds1795470000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "request_id" character varying(128)`);
    await queryRunner.query(`ALTER TABLE "outbox_events" ADD "request_id" character varying(128)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_events" DROP COLUMN "request_id"`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "request_id"`);
  }
}
