import { Command, CommandRunner, Option } from 'nest-commander';
import { MODEL_TIERS } from '../common/model-tier-catalogue';
import { Configuration } from '../config/configuration';
import { resolveEngineTiers, type EngineTiers, type TierSummary } from '../engine/tiers/engine-tiers';
import { LANGUAGE_COUNT } from '../languages/languages';
import { printJson } from './cli-output';

/**
 * `node dist/cli.js engine:tiers`: what each tier runs on this deployment with the current configuration and
 * installed models, as one JSON line (`--table`: a short table for people, one row per tier with its engine,
 * model and whether its files are in place, then why a tier fell back, as the quick start prints it); a
 * misconfigured tier fails with the same message the service gives at boot.
 */
@Command({
  name: 'engine:tiers',
  description:
    'Print the recogniser, Whisper model, diarizer and languages each tier resolves to (one JSON line; --table for people)',
})
export class EngineTiersCommand extends CommandRunner {
  constructor(private readonly config: Configuration) {
    super();
  }

  async run(_parameters: string[], options: { table?: boolean }): Promise<void> {
    const resolution = resolveEngineTiers(this.config);
    if (!options.table) return printJson(resolution);
    process.stdout.write(`${await tiersTable(resolution)}\n`);
  }

  @Option({ flags: '--table', description: 'A short table for people instead of the JSON line' })
  parseTable(): boolean {
    return true;
  }
}

/** One table row per tier, as GET /v1/tiers describes it (the same EngineTiers summary), with its status. */
export interface TierRow extends TierSummary {
  /** `ready`, or why the recogniser could not start now (the readiness probe's check). */
  status: string;
}

export async function tierRows(tiers: EngineTiers): Promise<TierRow[]> {
  return Promise.all(
    MODEL_TIERS.map(async (tier) => ({
      ...tiers.summary(tier),
      status: await tiers.checkRecognizer(tier).then(
        () => 'ready',
        (error: Error) => `not ready: ${error.message}`,
      ),
    })),
  );
}

/**
 * One short row per tier (tier, engine, model, languages, diarizer, status); a line saying which tiers run the
 * very same engine and model (so give the same text); then, under `why:`, what made `auto` choose, a model per
 * language, and why a tier is not ready.
 */
export async function tiersTable(tiers: EngineTiers): Promise<string> {
  const rows = await tierRows(tiers);
  const cells = [['tier', 'engine', 'model', 'languages', 'diarizer', 'status']];
  const why: string[] = [];
  for (const row of rows) {
    const ready = row.status === 'ready';
    cells.push([
      row.tier,
      row.engineName,
      row.model,
      row.languages.length === LANGUAGE_COUNT ? `all ${LANGUAGE_COUNT}` : row.languages.join(', '),
      row.diarizer,
      ready ? 'ready' : 'not ready',
    ]);
    for (const [language, model] of Object.entries(row.modelsByLanguage)) {
      why.push(`  ${row.tier}: ${language} audio → ${model}`);
    }
    for (const note of tiers.get(row.tier).notes) why.push(`  ${row.tier}: ${note}`);
    if (!ready) why.push(`  ${row.tier}: ${row.status}`);
  }
  const widths = cells[0].map((_, column) => Math.max(...cells.map((line) => line[column].length)));
  const lines = cells.map((line) =>
    line
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd(),
  );
  return [...lines, ...sameEngineLines(rows), ...(why.length > 0 ? ['why:', ...why] : [])].join('\n');
}

/** "premium, premium_jade run the same PocketSphinx en-us as standard: the same text, …" for each group. */
function sameEngineLines(rows: TierRow[]): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const first of rows) {
    const key = (row: TierRow) => JSON.stringify([row.engine, row.model, row.modelsByLanguage]);
    if (seen.has(key(first))) continue;
    seen.add(key(first));
    const alike = rows.filter((row) => row !== first && key(row) === key(first)).map((row) => row.tier);
    if (alike.length > 0) {
      lines.push(
        `${alike.join(', ')} ${alike.length > 1 ? 'run' : 'runs'} the same ${first.engineName} ${first.model} as ${first.tier}: the same text, at ${alike.length > 1 ? 'their' : 'its'} own price`,
      );
    }
  }
  return lines;
}
