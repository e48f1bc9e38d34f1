import { basename } from 'node:path';
import { Command, CommandRunner, Option } from 'nest-commander';
import { Configuration } from '../config/configuration';
import { resolveEngineTiers } from '../engine/tiers/engine-tiers';
import { printJson } from './cli-output';

/**
 * `node dist/cli.js engine:tiers`: what each tier runs on this deployment with the current configuration and
 * installed models, as one JSON line (`--table`: a short table for people, with why a tier fell back, as the quick
 * start prints it); a misconfigured tier fails with the same message the service gives at boot.
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
    // The same description the JSON line prints (EngineTiers' toJSON): kinds, engines' report fields, notes.
    const described = JSON.parse(JSON.stringify(resolution)) as { tiers: Record<string, TierRow> };
    process.stdout.write(`${tiersTable(described.tiers)}\n`);
  }

  @Option({ flags: '--table', description: 'A short table for people instead of the JSON line' })
  parseTable(): boolean {
    return true;
  }
}

interface TierRow {
  recognizer: string;
  whisperModelPath?: string | null;
  diarizer: string;
  languages: string[] | 'all';
  notes?: string[];
}

/** One line per tier (recogniser, model file, diarizer, languages), then why any tier fell back. */
export function tiersTable(tiers: Record<string, TierRow>): string {
  const rows = [['tier', 'recogniser', 'model', 'diarizer', 'languages']];
  const notes: string[] = [];
  for (const [tier, row] of Object.entries(tiers)) {
    rows.push([
      tier,
      row.recognizer,
      row.whisperModelPath
        ? basename(row.whisperModelPath)
        : row.recognizer === 'pocketsphinx'
          ? 'en-us (PocketSphinx)'
          : '-',
      row.diarizer,
      row.languages === 'all' ? 'all (99)' : row.languages.join(', '),
    ]);
    for (const note of row.notes ?? []) notes.push(`  ${tier}: ${note}`);
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const lines = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd(),
  );
  return [...lines, ...(notes.length > 0 ? ['why:', ...notes] : [])].join('\n');
}
