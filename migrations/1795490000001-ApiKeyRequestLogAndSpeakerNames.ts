import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dashboard's request log per API key (time, method, path, status, duration, request id), pruned by the
 * retention purge after API_KEY_REQUEST_LOG_DAYS; and the names a workspace gives a transcript's speakers.
 */
export class ApiKeyRequestLogAndSpeakerNames1795490000001 implements MigrationInterface {
  name = 'ApiKeyRequestLogAndSpeakerNames1795490000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "api_key_requests" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "api_key_id" uuid NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL, "method" character varying(16) NOT NULL, "path" character varying(512) NOT NULL, "status" smallint NOT NULL, "duration_ms" integer NOT NULL, "request_id" character varying(128) NOT NULL, CONSTRAINT "PK_api_key_requests" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_api_key_requests_key_at" ON "api_key_requests" ("api_key_id", "at") `,
    );
    await queryRunner.query(`CREATE INDEX "idx_api_key_requests_at" ON "api_key_requests" ("at") `);
    await queryRunner.query(
      `ALTER TABLE "api_key_requests" ADD CONSTRAINT "FK_api_key_requests_api_key" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "speaker_names" jsonb NOT NULL DEFAULT '{}'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "speaker_names"`);
    await queryRunner.query(`DROP TABLE "api_key_requests"`);
  }
}
