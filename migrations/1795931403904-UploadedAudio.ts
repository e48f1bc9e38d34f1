import { MigrationInterface, QueryRunner } from 'typeorm';

/** AssemblyAI-compatible uploads (issue 33): files uploaded ahead of their transcription, and how a compatible API asked for a job. */
export class UploadedAudio1795931403904 implements MigrationInterface {
  name = 'UploadedAudio1795931403904';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "uploaded_audio" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "storage_key" character varying(255) NOT NULL, "file_name" character varying(255) NOT NULL, "size" bigint NOT NULL, "sha256" character(64) NOT NULL, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_1eb648969481977b8bdd91c842e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_uploaded_audio_expires" ON "uploaded_audio" ("expires_at") `);
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "compat_request" jsonb`);
    await queryRunner.query(
      `ALTER TABLE "uploaded_audio" ADD CONSTRAINT "FK_e116c2516a37a00aa10ad34468b" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "uploaded_audio" DROP CONSTRAINT "FK_e116c2516a37a00aa10ad34468b"`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "compat_request"`);
    await queryRunner.query(`DROP INDEX "public"."idx_uploaded_audio_expires"`);
    await queryRunner.query(`DROP TABLE "uploaded_audio"`);
  }
}
