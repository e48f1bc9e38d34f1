import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tombstones of deleted transcriptions (issue 10, item 2): only the id, workspace and createdOn, so a list
 * cursor naming a transcription deleted between two pages keeps working.
 */
export class TranscriptionTombstones1795460579996 implements MigrationInterface {
  name = 'TranscriptionTombstones1795460579996';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "transcription_tombstones" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL, "deleted_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6b7fecc047be4249b5a23d0d56c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_transcription_tombstones_deleted" ON "transcription_tombstones" ("deleted_on") `,
    );
    await queryRunner.query(
      `ALTER TABLE "transcription_tombstones" ADD CONSTRAINT "FK_218bf0ddfdf7de59f747ccf01a6" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "transcription_tombstones" DROP CONSTRAINT "FK_218bf0ddfdf7de59f747ccf01a6"`,
    );
    await queryRunner.query(`DROP INDEX "public"."idx_transcription_tombstones_deleted"`);
    await queryRunner.query(`DROP TABLE "transcription_tombstones"`);
  }
}
