import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Full-text search of transcripts for the list's `search`. `search_vector` is resultText as a tsvector in the
 * text-search configuration of the job's language (detected, else requested; 'simple', which only lower-cases,
 * when it is unknown or PostgreSQL has no stemmer for it), kept by a trigger and indexed with GIN.
 *
 * transcript_search_query(q) is the one query that matches every row whatever its configuration: q as a phrase
 * in each configuration the documents may use, OR-ed (a document only holds the lexemes of its own
 * configuration, so the other configurations' forms of q find nothing there). Both functions are the single
 * place where languages map to configurations.
 */
export class TranscriptSearchVector1795490100000 implements MigrationInterface {
  name = 'TranscriptSearchVector1795490100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Configurations shipped with PostgreSQL 12 and later, for the languages this service transcribes.
    await queryRunner.query(`
      CREATE FUNCTION transcript_search_config(language text) RETURNS regconfig
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT (CASE lower(language)
          WHEN 'ar' THEN 'arabic' WHEN 'da' THEN 'danish' WHEN 'nl' THEN 'dutch' WHEN 'en' THEN 'english'
          WHEN 'fi' THEN 'finnish' WHEN 'fr' THEN 'french' WHEN 'de' THEN 'german' WHEN 'el' THEN 'greek'
          WHEN 'hu' THEN 'hungarian' WHEN 'id' THEN 'indonesian' WHEN 'it' THEN 'italian'
          WHEN 'lt' THEN 'lithuanian' WHEN 'ne' THEN 'nepali' WHEN 'no' THEN 'norwegian' WHEN 'nn' THEN 'norwegian'
          WHEN 'pt' THEN 'portuguese' WHEN 'ro' THEN 'romanian' WHEN 'ru' THEN 'russian' WHEN 'es' THEN 'spanish'
          WHEN 'sv' THEN 'swedish' WHEN 'ta' THEN 'tamil' WHEN 'tr' THEN 'turkish'
          ELSE 'simple' END)::regconfig
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION transcript_search_query(q text) RETURNS tsquery
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT phraseto_tsquery('simple', q) || phraseto_tsquery('arabic', q) || phraseto_tsquery('danish', q)
          || phraseto_tsquery('dutch', q) || phraseto_tsquery('english', q) || phraseto_tsquery('finnish', q)
          || phraseto_tsquery('french', q) || phraseto_tsquery('german', q) || phraseto_tsquery('greek', q)
          || phraseto_tsquery('hungarian', q) || phraseto_tsquery('indonesian', q)
          || phraseto_tsquery('italian', q) || phraseto_tsquery('lithuanian', q) || phraseto_tsquery('nepali', q)
          || phraseto_tsquery('norwegian', q) || phraseto_tsquery('portuguese', q)
          || phraseto_tsquery('romanian', q) || phraseto_tsquery('russian', q) || phraseto_tsquery('spanish', q)
          || phraseto_tsquery('swedish', q) || phraseto_tsquery('tamil', q) || phraseto_tsquery('turkish', q)
      $$`);
    await queryRunner.query(`ALTER TABLE "transcriptions" ADD "search_vector" tsvector`);
    await queryRunner.query(`
      CREATE FUNCTION transcriptions_search_vector_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.search_vector := CASE WHEN NEW.result_text IS NULL THEN NULL ELSE to_tsvector(
          transcript_search_config(coalesce(NEW.detected_language, NEW.language)), NEW.result_text) END;
        RETURN NEW;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER "trg_transcriptions_search_vector"
      BEFORE INSERT OR UPDATE OF result_text, language, detected_language ON "transcriptions"
      FOR EACH ROW EXECUTE FUNCTION transcriptions_search_vector_update()`);
    await queryRunner.query(`UPDATE "transcriptions" SET result_text = result_text WHERE result_text IS NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX "idx_transcriptions_search_vector" ON "transcriptions" USING GIN ("search_vector")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_transcriptions_search_vector"`);
    await queryRunner.query(`DROP TRIGGER "trg_transcriptions_search_vector" ON "transcriptions"`);
    await queryRunner.query(`DROP FUNCTION transcriptions_search_vector_update()`);
    await queryRunner.query(`ALTER TABLE "transcriptions" DROP COLUMN "search_vector"`);
    await queryRunner.query(`DROP FUNCTION transcript_search_query(text)`);
    await queryRunner.query(`DROP FUNCTION transcript_search_config(text)`);
  }
}
