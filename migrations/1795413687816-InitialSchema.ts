import { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1795413687816 implements MigrationInterface {
  name = 'InitialSchema1795413687816';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Substring search over file names and transcripts (GET /v1/transcriptions?search=) uses trigram indexes.
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await queryRunner.query(
      `CREATE TABLE "workspaces" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(200) NOT NULL, "slug" character varying(120) NOT NULL, "balance_micro" bigint NOT NULL DEFAULT '0', "free_transcriptions_remaining" integer NOT NULL DEFAULT '0', "low_balance_threshold_micro" bigint NOT NULL DEFAULT '0', "low_balance_armed" boolean NOT NULL DEFAULT true, "auto_reload_enabled" boolean NOT NULL DEFAULT false, "auto_reload_threshold_micro" bigint, "auto_reload_amount_micro" bigint, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_b8e9fe62e93d60089dfc4f175f3" UNIQUE ("slug"), CONSTRAINT "chk_workspaces_free_transcriptions" CHECK (free_transcriptions_remaining >= 0), CONSTRAINT "PK_098656ae401f3e1a4586f47fd8e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "users" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "email" character varying(320) NOT NULL, "name" character varying(200), "preferred_language" character varying(8) NOT NULL DEFAULT 'en', "active_workspace_id" uuid, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_users_email" ON "users" ("email") `);
    await queryRunner.query(
      `CREATE TABLE "api_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "user_id" uuid NOT NULL, "prefix" character varying(16) NOT NULL, "key_hash" character(64) NOT NULL, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "revoked_on" TIMESTAMP WITH TIME ZONE, "expires_on" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_api_keys_workspace" ON "api_keys" ("workspace_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_api_keys_hash" ON "api_keys" ("key_hash") `);
    await queryRunner.query(
      `CREATE TABLE "balance_ledger" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "kind" character varying(16) NOT NULL, "amount_micro" bigint NOT NULL, "balance_after_micro" bigint NOT NULL, "transcription_id" uuid, "description" character varying(200), "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "chk_balance_ledger_kind" CHECK (kind IN ('top-up', 'charge', 'adjustment')), CONSTRAINT "PK_0a98088b8fe8aaa77f7ba363421" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_balance_ledger_charge_per_transcription" ON "balance_ledger" ("transcription_id") WHERE kind = 'charge'`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_balance_ledger_workspace_created" ON "balance_ledger" ("workspace_id", "created_on") `,
    );
    await queryRunner.query(
      `CREATE TABLE "idempotency_records" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "key" uuid NOT NULL, "fingerprint" character(64) NOT NULL, "state" character varying(16) NOT NULL, "response_status" integer, "response_body" jsonb, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_on" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "chk_idempotency_state" CHECK (state IN ('in-flight', 'completed')), CONSTRAINT "PK_9ae4e93699362b0d4e3da3dd1c2" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_idempotency_expires" ON "idempotency_records" ("expires_on") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_idempotency_workspace_key" ON "idempotency_records" ("workspace_id", "key") `,
    );
    await queryRunner.query(
      `CREATE TABLE "transcriptions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "user_id" uuid, "model" character varying(16) NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'queued', "progress" smallint NOT NULL DEFAULT '0', "original_file_name" character varying(255) NOT NULL, "file_size" bigint NOT NULL, "mime_type" character varying(100), "storage_key" character varying(255), "duration" double precision, "language" character varying(8), "detected_language" character varying(8), "vocabulary" jsonb NOT NULL DEFAULT '[]', "speaker_hints" jsonb NOT NULL DEFAULT '{}', "result_text" text, "result_json" jsonb, "word_count" integer, "speaker_count" integer, "cost_micro" bigint, "uses_free_transcription" boolean NOT NULL DEFAULT false, "error_message" text, "attempts" integer NOT NULL DEFAULT '0', "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "started_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, "failed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "chk_transcriptions_progress" CHECK (progress BETWEEN 0 AND 100), CONSTRAINT "chk_transcriptions_model" CHECK (model IN ('standard', 'premium', 'premium_jade')), CONSTRAINT "chk_transcriptions_status" CHECK (status IN ('queued', 'processing', 'completed', 'failed')), CONSTRAINT "PK_cba8a0264bdf2680c0d93fc7d17" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_transcriptions_status" ON "transcriptions" ("status") `);
    await queryRunner.query(
      `CREATE INDEX "idx_transcriptions_workspace_created" ON "transcriptions" ("workspace_id", "created_on", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "vocabularies" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "name" character varying(100) NOT NULL, "words" jsonb NOT NULL, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1f0c8d5539ccaf456ebf73cabb5" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_vocabularies_workspace_created" ON "vocabularies" ("workspace_id", "created_on") `,
    );
    await queryRunner.query(
      `CREATE TABLE "outbox_events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "type" character varying(40) NOT NULL, "dedupe_key" character varying(120) NOT NULL, "data" jsonb NOT NULL, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "dispatched_on" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_6689a16c00d09b8089f6237f1d2" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_outbox_events_dedupe_key" ON "outbox_events" ("dedupe_key") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_outbox_events_undispatched" ON "outbox_events" ("dispatched_on") `,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_endpoints" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "url" text NOT NULL, "events" character varying array NOT NULL, "secret" character varying(100) NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_054c4cfb95223732f5939d2d546" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_endpoints_workspace_created" ON "webhook_endpoints" ("workspace_id", "created_on") `,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "event_id" uuid NOT NULL, "endpoint_id" uuid NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'pending', "attempts" jsonb NOT NULL DEFAULT '[]', "created_on" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "completed_on" TIMESTAMP WITH TIME ZONE, CONSTRAINT "chk_webhook_deliveries_status" CHECK (status IN ('pending', 'delivered', 'failed')), CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_deliveries_status" ON "webhook_deliveries" ("status") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_webhook_deliveries_event_endpoint" ON "webhook_deliveries" ("event_id", "endpoint_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "users" ADD CONSTRAINT "FK_feac4e468d29bfdab43acd15082" FOREIGN KEY ("active_workspace_id") REFERENCES "workspaces"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "FK_deb68fe8625b21785d1c48283e4" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "FK_a3baee01d8408cd3c0f89a9a973" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "balance_ledger" ADD CONSTRAINT "FK_d7bd26f0790d1a38886d9b3e93e" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "transcriptions" ADD CONSTRAINT "FK_2911283ff2fd52c0ca2046a22b3" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "transcriptions" ADD CONSTRAINT "FK_ce7b3004c4469bf849f54440218" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "vocabularies" ADD CONSTRAINT "FK_4322d5321d6e2e99459ab5b0033" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "outbox_events" ADD CONSTRAINT "FK_65e9eb00f87618ea26bd27adf60" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "FK_a37f51d7045b4f19721c6813c63" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "FK_27d1ee90033bdafe0ffe8f1be6f" FOREIGN KEY ("event_id") REFERENCES "outbox_events"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "FK_0b882c26a9b91c26e6e86b4867c" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_transcriptions_file_name_trgm" ON "transcriptions" USING gin ("original_file_name" gin_trgm_ops)`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_transcriptions_result_text_trgm" ON "transcriptions" USING gin ("result_text" gin_trgm_ops)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_transcriptions_result_text_trgm"`);
    await queryRunner.query(`DROP INDEX "idx_transcriptions_file_name_trgm"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "FK_0b882c26a9b91c26e6e86b4867c"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "FK_27d1ee90033bdafe0ffe8f1be6f"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "FK_a37f51d7045b4f19721c6813c63"`,
    );
    await queryRunner.query(`ALTER TABLE "outbox_events" DROP CONSTRAINT "FK_65e9eb00f87618ea26bd27adf60"`);
    await queryRunner.query(`ALTER TABLE "vocabularies" DROP CONSTRAINT "FK_4322d5321d6e2e99459ab5b0033"`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP CONSTRAINT "FK_ce7b3004c4469bf849f54440218"`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP CONSTRAINT "FK_2911283ff2fd52c0ca2046a22b3"`);
    await queryRunner.query(`ALTER TABLE "balance_ledger" DROP CONSTRAINT "FK_d7bd26f0790d1a38886d9b3e93e"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "FK_a3baee01d8408cd3c0f89a9a973"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "FK_deb68fe8625b21785d1c48283e4"`);
    await queryRunner.query(`ALTER TABLE "users" DROP CONSTRAINT "FK_feac4e468d29bfdab43acd15082"`);
    await queryRunner.query(`DROP INDEX "public"."uq_webhook_deliveries_event_endpoint"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_status"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_endpoints_workspace_created"`);
    await queryRunner.query(`DROP TABLE "webhook_endpoints"`);
    await queryRunner.query(`DROP INDEX "public"."idx_outbox_events_undispatched"`);
    await queryRunner.query(`DROP INDEX "public"."uq_outbox_events_dedupe_key"`);
    await queryRunner.query(`DROP TABLE "outbox_events"`);
    await queryRunner.query(`DROP INDEX "public"."idx_vocabularies_workspace_created"`);
    await queryRunner.query(`DROP TABLE "vocabularies"`);
    await queryRunner.query(`DROP INDEX "public"."idx_transcriptions_workspace_created"`);
    await queryRunner.query(`DROP INDEX "public"."idx_transcriptions_status"`);
    await queryRunner.query(`DROP TABLE "transcriptions"`);
    await queryRunner.query(`DROP INDEX "public"."uq_idempotency_workspace_key"`);
    await queryRunner.query(`DROP INDEX "public"."idx_idempotency_expires"`);
    await queryRunner.query(`DROP TABLE "idempotency_records"`);
    await queryRunner.query(`DROP INDEX "public"."idx_balance_ledger_workspace_created"`);
    await queryRunner.query(`DROP INDEX "public"."uq_balance_ledger_charge_per_transcription"`);
    await queryRunner.query(`DROP TABLE "balance_ledger"`);
    await queryRunner.query(`DROP INDEX "public"."uq_api_keys_hash"`);
    await queryRunner.query(`DROP INDEX "public"."idx_api_keys_workspace"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
    await queryRunner.query(`DROP INDEX "public"."uq_users_email"`);
    await queryRunner.query(`DROP TABLE "users"`);
    await queryRunner.query(`DROP TABLE "workspaces"`);
  }
}
