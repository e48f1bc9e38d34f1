/**
 * List search at 100k rows: GET /v1/transcriptions?search=… against a throwaway database (migrated with
 * `node dist/cli.js migrate`) holding 100,000 completed transcriptions of the bench workspace, inserted with one
 * INSERT … SELECT generate_series: file names like `customer-call-2026-03-14-04217.mp3` and 40–120 word texts
 * drawn from the English reference transcripts of ../shared/audio, plus a few rare marker words.
 *
 *   npm run bench:search
 *   node dist-bench/bench/list-search.js [--rows 100000] [--calls 50]
 *
 * Per search term: p50 / p95 / p99 of --calls sequential requests (limit 20) through a ROLE=api process, the
 * number of items answered, and EXPLAIN ANALYZE of the service's query (same WHERE / ORDER BY / LIMIT) showing
 * which GIN indexes are used: pg_trgm (idx_transcriptions_file_name_trgm, idx_transcriptions_result_text_trgm) and,
 * where the schema has it, the full-text index (idx_transcriptions_search_vector). Without the search_vector
 * column (a build before it) the query is the substring search alone, so the same bench measures both.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { requireSharedAudio } from '../test/support/shared-paths';
import {
  fixed,
  machineInfo,
  markdownTable,
  numberArgument,
  percentile,
  publish,
  quietWaitMs,
  runMain,
  seconds,
  waitForQuietMachine,
} from './lib/measure';
import { withSandbox } from './lib/sandbox';

/** Words of the English reference transcripts (lower case, letters only). */
function vocabulary(): string[] {
  const audio = requireSharedAudio('The list search benchmark');
  const words = new Set<string>();
  for (const folder of fs.readdirSync(audio, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const file of fs.readdirSync(path.join(audio, folder.name))) {
      if (
        !file.endsWith('.txt') ||
        /_(de|fr|es|it|ja|ru)|thorsten|kaldi|aishell|test_(de|fr|es|it|ja)/.test(file)
      )
        continue;
      for (const word of fs
        .readFileSync(path.join(audio, folder.name, file), 'utf8')
        .toLowerCase()
        .split(/[^a-z']+/)) {
        if (word.length >= 2) words.add(word);
      }
    }
  }
  return [...words];
}

const TERMS: Array<{ term: string; what: string }> = [
  { term: 'zanzibar', what: 'rare word in the text (every 10,000th row)' },
  { term: 'quarterly-review', what: 'file-name fragment (every 1,000th row)' },
  { term: 'customer-call', what: 'common file-name prefix (1 in 8 rows)' },
  { term: 'country', what: 'common word of the texts' },
  { term: 'countries', what: 'another form of a common word (full-text only)' },
  { term: 'xylophone-nowhere', what: 'no match at all' },
];

async function main(): Promise<void> {
  const rows = numberArgument('--rows', 100_000);
  const calls = numberArgument('--calls', 50);
  const machine = machineInfo();
  const words = vocabulary();
  const figures = await withSandbox({ LOG_LEVEL: 'warn' }, async (sandbox) => {
    const inserting = process.hrtime.bigint();
    await sandbox.query(
      `INSERT INTO transcriptions (workspace_id, model, status, progress, original_file_name, file_size, mime_type,
                                   duration, language, detected_language, result_text, word_count, speaker_count,
                                   cost_micro, created_on, started_at, completed_at)
       SELECT $1::uuid, 'standard', 'completed', 100,
              CASE WHEN g % 1000 = 0 THEN 'quarterly-review-' || g || '.m4a'
                   ELSE (ARRAY['interview','meeting','podcast-episode','lecture','voicemail','standup',
                               'customer-call','webinar'])[1 + g % 8]
                        || '-2026-' || lpad((1 + g % 12)::text, 2, '0') || '-' || lpad((1 + g % 28)::text, 2, '0')
                        || '-' || lpad(g::text, 6, '0')
                        || (ARRAY['.mp3','.wav','.m4a','.flac','.mp4'])[1 + g % 5] END,
              100000 + (g * 7919) % 50000000, 'audio/mpeg', 30 + g % 3600, 'en', 'en',
              (SELECT string_agg(w.word, ' ')
                 FROM (SELECT ($2::text[])[1 + floor(random() * array_length($2::text[], 1))::int] AS word
                         FROM generate_series(1, 40 + (g % 80)) AS n WHERE g > 0) AS w)
                || CASE WHEN g % 10000 = 0 THEN ' zanzibar' ELSE '' END,
              40 + g % 80, 1 + g % 3, 1000 + g % 5000,
              now() - make_interval(secs => g * 30), now() - make_interval(secs => g * 30 - 5),
              now() - make_interval(secs => g * 30 - 20)
         FROM generate_series(1, $3::int) AS g`,
      [sandbox.workspaceId, words, rows],
    );
    await sandbox.query('ANALYZE transcriptions');
    const insertSeconds = seconds(inserting);
    const [{ count, size }] = await sandbox.query<{ count: string; size: string }>(
      `SELECT count(*) AS count, pg_size_pretty(pg_total_relation_size('transcriptions')) AS size FROM transcriptions`,
    );
    console.error(`[list-search] ${count} rows (${size}) in ${fixed(insertSeconds, 1)} s`);
    const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
    const api = await sandbox.start('api');
    const [{ fullText }] = await sandbox.query<{ fullText: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM information_schema.columns
                       WHERE table_name = 'transcriptions' AND column_name = 'search_vector') AS "fullText"`,
    );
    // The service's WHERE for `search` ($2: the LIKE pattern, $3: the term).
    const whereSearch = fullText
      ? `(t.original_file_name ILIKE $2 OR t.result_text ILIKE $2 OR t.search_vector @@ transcript_search_query($3))`
      : `(t.original_file_name ILIKE $2 OR t.result_text ILIKE $2 OR $3 = '')`;
    const results = [];
    for (const { term, what } of TERMS) {
      const url = `${api.url as string}/v1/transcriptions?limit=20&search=${encodeURIComponent(term)}`;
      const headers = { Authorization: `Bearer ${sandbox.apiKey}` };
      // One warm-up call (plan cache, connection pool), then the timed calls.
      await fetch(url, { headers }).then((response) => response.arrayBuffer());
      const times: number[] = [];
      let items = 0;
      for (let call = 0; call < calls; call++) {
        const started = process.hrtime.bigint();
        const response = await fetch(url, { headers });
        const body = (await response.json()) as { data?: unknown[] };
        times.push(seconds(started) * 1000);
        if (response.status !== 200) throw new Error(`search ${term}: ${response.status}`);
        items = body.data?.length ?? 0;
      }
      const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const plan = (
        await sandbox.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, BUFFERS OFF) SELECT * FROM transcriptions t
            WHERE t.workspace_id = $1 AND ${whereSearch}
            ORDER BY t.created_on DESC, t.id DESC LIMIT 21`,
          [sandbox.workspaceId, pattern, term],
        )
      ).map((line) => line['QUERY PLAN']);
      const [{ matches }] = await sandbox.query<{ matches: string }>(
        `SELECT count(*) AS matches FROM transcriptions t WHERE t.workspace_id = $1 AND ${whereSearch}`,
        [sandbox.workspaceId, pattern, term],
      );
      const indexes = [
        'idx_transcriptions_file_name_trgm',
        'idx_transcriptions_result_text_trgm',
        'idx_transcriptions_search_vector',
        'idx_transcriptions_workspace_created',
      ]
        .filter((index) => plan.some((line) => line.includes(index)))
        .map((index) => index.replace('idx_transcriptions_', ''));
      const execution =
        plan.find((line) => line.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '';
      const result = {
        term,
        what,
        matches: Number(matches),
        items,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        p99: percentile(times, 99),
        indexes,
        execution,
        plan,
      };
      console.error(
        `[list-search] ${term}: p50 ${fixed(result.p50, 1)} ms, p95 ${fixed(result.p95, 1)} ms, indexes ${indexes.join(', ')}`,
      );
      results.push(result);
    }
    return { count: Number(count), size, insertSeconds, results, loadAtStart, fullText };
  });
  const table = markdownTable(
    [
      'search',
      'rows matching',
      'items answered',
      'p50 (ms)',
      'p95 (ms)',
      'p99 (ms)',
      'indexes in the plan',
      'EXPLAIN ANALYZE execution',
    ],
    figures.results.map((result) => [
      `\`${result.term}\` (${result.what})`,
      result.matches.toLocaleString('en'),
      String(result.items),
      fixed(result.p50, 1),
      fixed(result.p95, 1),
      fixed(result.p99, 1),
      result.indexes.join(', ') || 'none',
      result.execution,
    ]),
  );
  const rarePlan = figures.results[0].plan.join('\n');
  publish(
    'list-search',
    `${figures.fullText ? 'Substring and full-text search' : 'Substring search only (no search_vector column)'}.\n\n` +
      `${table}\n\n${figures.count.toLocaleString('en')} rows in one workspace (table with indexes ${figures.size}), ` +
      `inserted and analysed in ${fixed(figures.insertSeconds, 1)} s; ${calls} sequential calls per term with limit=20 ` +
      `through the API (authentication and JSON included). Load average before the calls ${figures.loadAtStart}. ` +
      `Machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.postgres}.\n\n` +
      `EXPLAIN ANALYZE for \`${figures.results[0].term}\`:\n\n\`\`\`\n${rarePlan}\n\`\`\``,
    figures,
  );
}

runMain(main);
