import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tracing (issue 34): the W3C trace context a job and an outbox event keep, so its later steps continue the upload's trace. */
export class Traceparent1795942598745 implements MigrationInterface {
  name = 'Traceparent1795942598745';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_events" ADD "traceparent" character varying(55)`);
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "traceparent" character varying(55)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "traceparent"`);
    await queryRunner.query(`ALTER TABLE "outbox_events" DROP COLUMN "traceparent"`);
  }
}
