import { MigrationInterface, QueryRunner } from 'typeorm';

/** AssemblyAI streaming tokens (issue 33): which WebSocket a realtime client secret opens (`openai` /v1/realtime, `assemblyai` /v3/ws). */
export class ClientSecretProtocol1795942491114 implements MigrationInterface {
  name = 'ClientSecretProtocol1795942491114';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "realtime_client_secrets" ADD "protocol" character varying(16) NOT NULL DEFAULT 'openai'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "realtime_client_secrets" DROP COLUMN "protocol"`);
  }
}
