import { MigrationInterface, QueryRunner } from 'typeorm';

/** The request log keeps the query string (redacted by loggedQuery, src/auth/request-log-query.ts). */
export class RequestLogQuery1795909734600 implements MigrationInterface {
  name = 'RequestLogQuery1795909734600';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "api_key_requests" ADD "query" character varying(512) NOT NULL DEFAULT ''`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_key_requests" DROP COLUMN "query"`);
  }
}
