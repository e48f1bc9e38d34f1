/**
 * Runs a bench that measures an already running service (`--service URL --api-key KEY`) against a throwaway
 * one: the command-line entry of bench/lib/sandbox.ts, the one harness every service bench uses.
 *
 *   npm run build && npx tsc -p tsconfig.bench.json
 *   node dist-bench/bench/run-service.js wer [bench arguments...]     # npm run bench:wer
 *   node dist-bench/bench/run-service.js der-service                  # npm run bench:der
 *
 * The sandbox (see there) copies dist/, creates a database, a Redis prefix, a storage folder and a workspace;
 * here one `node dist/main.js` with ROLE=all is started in it, `node dist-bench/bench/<name>.js --service <url>
 * --api-key <key> [arguments]` runs against it, and everything is torn down afterwards. The service log is kept
 * when the bench fails (or with BENCH_KEEP_LOG=1).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runMain } from './lib/measure';
import { runNodeScript, withSandbox } from './lib/sandbox';

async function main(): Promise<number> {
  const [benchName, ...benchArgs] = process.argv.slice(2);
  if (!benchName) {
    console.error('usage: node dist-bench/bench/run-service.js <bench name, e.g. wer> [bench arguments...]');
    return 2;
  }
  const benchScript = path.join(__dirname, `${benchName}.js`);
  if (!fs.existsSync(benchScript))
    throw new Error(`${benchScript} not found (npx tsc -p tsconfig.bench.json?)`);
  return withSandbox({ LOG_LEVEL: 'warn' }, async (sandbox) => {
    const service = await sandbox.start('all');
    const status = await runNodeScript(benchScript, [
      ...['--service', service.url as string, '--api-key', sandbox.apiKey],
      ...benchArgs,
    ]);
    if (status !== 0) {
      console.error(`[run-service] bench exited with ${status}`);
      sandbox.keepLogs = true;
    }
    return status;
  });
}

runMain(main);
