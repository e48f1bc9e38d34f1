import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency records (issue 10, item 6): the first answer is kept as its exact text with its content type
 * (replays are byte-identical), an in-flight claim carries a lease (a crashed holder does not block the key
 * for 24 h), and the fingerprint is set at completion (the claim is taken before the body is read).
 */
export class IdempotencyLeaseAndRawBody1795459558388 implements MigrationInterface {
  name = 'IdempotencyLeaseAndRawBody1795459558388';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Completed records keep replaying (as the JSON text PostgreSQL renders for them).
    await queryRunner.query(
      `ALTER TABLE "idempotency_records" ALTER COLUMN "response_body" TYPE text USING "response_body"::text`,
    );
    await queryRunner.query(
      `ALTER TABLE "idempotency_records" ADD "response_content_type" character varying(100)`,
    );
    await queryRunner.query(
      `UPDATE "idempotency_records" SET "response_content_type" = 'application/json; charset=utf-8' WHERE "state" = 'completed'`,
    );
    // In-flight rows written before leases existed have none: the next request takes them over.
    await queryRunner.query(
      `ALTER TABLE "idempotency_records" ADD "lease_expires_on" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(`ALTER TABLE "idempotency_records" ALTER COLUMN "fingerprint" DROP NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "idempotency_records" WHERE "fingerprint" IS NULL`);
    await queryRunner.query(`ALTER TABLE "idempotency_records" ALTER COLUMN "fingerprint" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "idempotency_records" DROP COLUMN "lease_expires_on"`);
    await queryRunner.query(`ALTER TABLE "idempotency_records" DROP COLUMN "response_content_type"`);
    await queryRunner.query(
      `ALTER TABLE "idempotency_records" ALTER COLUMN "response_body" TYPE jsonb USING "response_body"::jsonb`,
    );
  }
}
