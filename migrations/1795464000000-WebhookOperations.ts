import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook operations (issue 11, item 5): a rotated secret keeps signing beside the new one for 24 h, and a
 * redelivery is a new delivery row of the same event to the same endpoint (so the one-delivery-per-event
 * unique index now holds for first deliveries only).
 */
export class WebhookOperations1795464000000 implements MigrationInterface {
  name = 'WebhookOperations1795464000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" ADD "previous_secret" character varying(100)`);
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoints" ADD "previous_secret_expires_on" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "redelivery_of" uuid`);
    await queryRunner.query(`DROP INDEX "public"."uq_webhook_deliveries_event_endpoint"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_webhook_deliveries_event_endpoint" ON "webhook_deliveries" ("event_id", "endpoint_id") WHERE redelivery_of IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_deliveries_endpoint_created" ON "webhook_deliveries" ("endpoint_id", "created_on")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_endpoint_created"`);
    await queryRunner.query(`DELETE FROM "webhook_deliveries" WHERE "redelivery_of" IS NOT NULL`);
    await queryRunner.query(`DROP INDEX "public"."uq_webhook_deliveries_event_endpoint"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_webhook_deliveries_event_endpoint" ON "webhook_deliveries" ("event_id", "endpoint_id")`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "redelivery_of"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" DROP COLUMN "previous_secret_expires_on"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" DROP COLUMN "previous_secret"`);
  }
}
