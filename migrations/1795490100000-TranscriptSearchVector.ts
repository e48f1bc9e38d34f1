import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Full-text search of transcripts for the list's `search`. `search_vector` is resultText as a tsvector in the
 * text-search configuration of the job's language (detected, else requested; 'simple', which only lower-cases,
 * when it is unknown or PostgreSQL has no stemmer for it), kept by a trigger and indexed with GIN.
 *
 * transcript_search_query(q) is the one query that matches every row whatever its configuration: q as a phrase
 * in each configuration the documents may use, OR-ed (null, matching nothing, when q has no lexeme) (a document only holds the lexemes of its own
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
    // Each distinct form once: the planner estimates an OR of n rare lexemes as n times one, and an estimate
    // that is too high makes it walk the whole workspace newest first instead of using the GIN index.
    await queryRunner.query(`
      CREATE FUNCTION transcript_search_query(q text) RETURNS tsquery
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT string_agg(DISTINCT '(' || form::text || ')', ' | ')::tsquery
          FROM (SELECT phraseto_tsquery(config, q) AS form
                  FROM unnest(ARRAY['simple', 'arabic', 'danish', 'dutch', 'english', 'finnish', 'french',
                                    'german', 'greek', 'hungarian', 'indonesian', 'italian', 'lithuanian',
                                    'nepali', 'norwegian', 'portuguese', 'romanian', 'russian', 'spanish',
                                    'swedish', 'tamil', 'turkish']::regconfig[]) AS config) AS forms
         WHERE form::text <> ''
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
    await queryRunner.query(
      `UPDATE "transcriptions" SET result_text = result_text WHERE result_text IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_transcriptions_search_vector" ON "transcriptions" USING GIN ("search_vector")`,
    );
    // A lexeme missing from the column's most-common-elements statistics is estimated from the rarest one
    // listed; with the default target (100) that is far too common, so a rare word looks like thousands of rows
    // and the list walks the workspace instead of the index (2 s instead of 15 ms at 100,000 rows:
    // docs/benchmarks.md). The maximum target keeps rare words rare, at the price of a larger ANALYZE sample.
    await queryRunner.query(`ALTER TABLE "transcriptions" ALTER COLUMN "search_vector" SET STATISTICS 10000`);
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
