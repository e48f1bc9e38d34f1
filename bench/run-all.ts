/**
 * Runs every benchmark in sequence (what `npm run bench` does after compiling the benches):
 * engine WER/overhead and diarization (bench/run-service.ts wer|der-service), then the service benches.
 *
 *   node dist-bench/bench/run-all.js [--only name,name] [--skip name,name]
 *
 * Each bench starts and tears down its own throwaway service. Results are printed as markdown and written to
 * dist-bench/results/<name>.json. Exit status: the number of benches that failed (0 = all ran).
 */
import * as path from 'node:path';
import { argument, runMain } from './lib/measure';
import { runNodeScript } from './lib/sandbox';

const BENCHES: Array<{ name: string; args: string[] }> = [
  { name: 'wer', args: ['run-service.js', 'wer'] }, // as npm run bench:wer
  { name: 'der', args: ['run-service.js', 'der-service'] },
  { name: 'decode', args: ['decode.js'] },
  { name: 'api', args: ['api-load.js'] },
  { name: 'search', args: ['list-search.js'] },
  { name: 'upload', args: ['upload.js'] },
  { name: 'worker-scaling', args: ['worker-scaling.js'] },
  { name: 'sse', args: ['sse-fanout.js'] },
  { name: 'long-audio', args: ['long-audio.js'] },
];

async function main(): Promise<number> {
  const only = argument('--only')?.split(',');
  const skip = argument('--skip')?.split(',') ?? [];
  const selected = BENCHES.filter(
    (bench) => (!only || only.includes(bench.name)) && !skip.includes(bench.name),
  );
  const failed: string[] = [];
  for (const bench of selected) {
    console.error(`\n[bench] ===== ${bench.name} =====`);
    const started = Date.now();
    const [script, ...args] = bench.args;
    const code = await runNodeScript(path.join(__dirname, script), args);
    console.error(
      `[bench] ${bench.name} exited ${code} after ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    if (code !== 0) failed.push(bench.name);
  }
  console.error(
    `\n[bench] ${selected.length - failed.length}/${selected.length} benches ran${failed.length ? `; failed: ${failed.join(', ')}` : ''}`,
  );
  return failed.length;
}

runMain(main);
