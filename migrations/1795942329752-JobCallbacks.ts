import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-job callbacks (issue 33: Deepgram's `callback`, AssemblyAI's `webhook_url`): the callback on its job, and a
 * webhook delivery that goes to a job's callback instead of a registered endpoint (exactly one per job end).
 */
export class JobCallbacks1795942329752 implements MigrationInterface {
  name = 'JobCallbacks1795942329752';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "callback" jsonb`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "transcription_id" uuid`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ALTER COLUMN "endpoint_id" DROP NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_deliveries_transcription" ON "webhook_deliveries" ("transcription_id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_webhook_deliveries_event_callback" ON "webhook_deliveries" ("event_id") WHERE transcription_id IS NOT NULL AND redelivery_of IS NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "chk_webhook_deliveries_target" CHECK ((endpoint_id IS NULL) <> (transcription_id IS NULL))`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "FK_f3a41733230abd462273ac4267e" FOREIGN KEY ("transcription_id") REFERENCES "transcriptions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "webhook_deliveries" WHERE "transcription_id" IS NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "FK_f3a41733230abd462273ac4267e"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "chk_webhook_deliveries_target"`,
    );
    await queryRunner.query(`DROP INDEX "public"."uq_webhook_deliveries_event_callback"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_transcription"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ALTER COLUMN "endpoint_id" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "transcription_id"`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "callback"`);
  }
}
