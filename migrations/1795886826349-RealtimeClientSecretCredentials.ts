import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The credential that minted each realtime client secret (issue 31): the API key, or the dashboard sign-in
 * (refresh-token family); the redemption checks it is still live. Secrets minted before carry neither and are
 * then held to their user alone (live while the user exists and acts in the workspace; 2 h at most).
 */
export class RealtimeClientSecretCredentials1795886826349 implements MigrationInterface {
  name = 'RealtimeClientSecretCredentials1795886826349';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "realtime_client_secrets" ADD "api_key_id" uuid`);
    await queryRunner.query(`ALTER TABLE "realtime_client_secrets" ADD "sign_in_id" uuid`);
    await queryRunner.query(
      `ALTER TABLE "realtime_client_secrets" ADD CONSTRAINT "FK_c0c3898c26d5fc96585250e53b2" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "realtime_client_secrets" DROP CONSTRAINT "FK_c0c3898c26d5fc96585250e53b2"`,
    );
    await queryRunner.query(`ALTER TABLE "realtime_client_secrets" DROP COLUMN "sign_in_id"`);
    await queryRunner.query(`ALTER TABLE "realtime_client_secrets" DROP COLUMN "api_key_id"`);
  }
}
