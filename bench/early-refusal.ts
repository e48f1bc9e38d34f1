/**
 * An upload that will be refused for who sends it (401), the workspace's money (402), its
 * Idempotency-Key (409) or its declared size (422 file-too-large) is answered before its body is read, so a
 * 500 MB upload is not streamed to storage first.
 *
 *   npm run bench:early-refusal
 *   node dist-bench/bench/early-refusal.js [--declared-mb 500] [--control-mb 100]
 *
 * Against a throwaway ROLE=api service (`node dist/main.js`), each case POSTs a multipart upload that declares
 * `--declared-mb` MB and generates it (zeros) until the answer arrives; the client stops sending then. Measured
 * per case: the bytes the client had handed to its socket when the answer arrived (an upper bound of what the
 * server read: the rest sat in socket buffers), the time to the answer, and the files the request added to
 * STORAGE_DIR (a refused upload must add none).
 * The control is a refusal that needs the file (422 unsupported-format for zeros that are no audio): the
 * server reads the whole `--control-mb` MB body before answering.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startStalledUpload, streamedUpload } from '../test/support/early-refusal';
import { fixed, loadAverage, markdownTable, numberArgument, publish, runMain } from './lib/measure';
import { sleep, withSandbox } from './lib/sandbox';

interface CaseResult {
  name: string;
  status: number;
  slug: string;
  declaredBytes: number;
  clientBytesSent: number;
  ms: number;
  connection: string;
  /** Files in STORAGE_DIR after the answer minus before the request. */
  filesAdded: number;
}

function filesUnder(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())
    .length;
}

async function main(): Promise<void> {
  const declaredBytes = numberArgument('--declared-mb', 500) * 1_000_000;
  const controlBytes = numberArgument('--control-mb', 100) * 1_000_000;
  const results = await withSandbox({ LOG_LEVEL: 'warn' }, async (sandbox) => {
    const api = await sandbox.start('api');
    const port = Number(new URL(api.url as string).port);
    const created = await sandbox.cli([
      'workspace:create',
      '--name',
      'Broke',
      '--balance',
      '0',
      '--free',
      '0',
    ]);
    const brokeKey = /"apiKey"\s*:\s*"([^"]+)"/.exec(created)?.[1];
    if (!brokeKey) throw new Error(`workspace:create printed no apiKey: ${created}`);
    const uploads = path.join(sandbox.storage, 'uploads');
    const measured: CaseResult[] = [];

    const run = async (name: string, headers: Record<string, string>, declared: number, giveUp: number) => {
      const filesBefore = filesUnder(uploads);
      const started = performance.now();
      const outcome = await streamedUpload(port, headers, declared, giveUp);
      const ms = performance.now() - started;
      await sleep(500); // a refused upload removes its partial file asynchronously
      const slug = (JSON.parse(outcome.body) as { type?: string }).type?.split('/').pop() ?? '';
      measured.push({
        name,
        status: outcome.status,
        slug,
        declaredBytes: declared,
        clientBytesSent: outcome.clientBytesSent,
        ms,
        connection: String(outcome.headers.connection ?? ''),
        filesAdded: filesUnder(uploads) - filesBefore,
      });
      console.error(`[bench] ${name}: ${outcome.status} ${slug} after ${outcome.clientBytesSent} bytes sent`);
    };
    const auth = { Authorization: `Bearer ${sandbox.apiKey}` };

    await run('bad credential', { Authorization: 'Bearer svc_live_not-a-key' }, declaredBytes, declaredBytes);
    await run(
      'no free transcription, balance 0',
      { Authorization: `Bearer ${brokeKey}` },
      declaredBytes,
      declaredBytes,
    );

    // A first upload with the key stalls after its head; the second with the same key is the one measured.
    const key = randomUUID();
    const first = startStalledUpload(port, { ...auth, 'Idempotency-Key': key }, declaredBytes);
    await sleep(1000);
    await run('Idempotency-Key in flight', { ...auth, 'Idempotency-Key': key }, declaredBytes, declaredBytes);
    first.destroy();
    await sleep(500);

    await run('declared length over 500 MB', auth, declaredBytes + 100_000_000, declaredBytes);
    await run('control: zeros, refused after reading (unsupported-format)', auth, controlBytes, Infinity);
    return measured;
  });

  const mb = (bytes: number): string => fixed(bytes / 1_000_000, 2);
  const markdown = [
    `Load average at the end: ${loadAverage()}. Bytes sent = what the client had handed to its socket when the`,
    'answer arrived (an upper bound of what the server read).',
    '',
    markdownTable(
      [
        'case',
        'answer',
        'declared MB',
        'sent before the answer (MB)',
        'time to answer (ms)',
        'Connection',
        'files added',
      ],
      results.map((result) => [
        result.name,
        `${result.status} ${result.slug}`,
        mb(result.declaredBytes),
        mb(result.clientBytesSent),
        fixed(result.ms, 0),
        result.connection,
        String(result.filesAdded),
      ]),
    ),
  ].join('\n');
  publish('early-refusal', markdown, { results });
}

runMain(main);
