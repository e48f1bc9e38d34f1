/**
 * The player's seek under STORAGE_DRIVER=s3: what one `GET /v1/transcriptions/{id}/audio` with a Range costs the
 * storage adapter, for the way it reads now (`size` + `readRange`: an S3 HEAD and a ranged GET) against the way
 * it read before (`withLocalFile`: the whole object downloaded to a temporary file, then the range read from it).
 *
 *   npm run bench:audio-range
 *   node dist-bench/bench/audio-range.js [--object-mb 200] [--seeks 15] [--range-kb 256]
 *
 * Against a real S3-protocol server on loopback (s3rver, the emulator the tests use): one object of
 * `--object-mb` MB, then `--seeks` seeks of `--range-kb` KB at random offsets, the two ways alternating so both
 * see the same machine load. Measured per seek: wall time, and the bytes that crossed from S3 to the service.
 * Loopback flatters the old way: over a real network its cost grows with the object, the new way's does not.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { S3Storage } from '../src/storage/s3.storage';
import { startS3Emulator } from '../test/support/s3-emulator';
import {
  fixed,
  loadAverage,
  markdownTable,
  numberArgument,
  percentile,
  publish,
  runMain,
} from './lib/measure';

async function drain(stream: Readable): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer).length;
  return bytes;
}

async function main(): Promise<void> {
  const objectBytes = numberArgument('--object-mb', 200) * 1_000_000;
  const seeks = numberArgument('--seeks', 15);
  const rangeBytes = numberArgument('--range-kb', 256) * 1024;
  const loadAtStart = loadAverage();
  const emulator = await startS3Emulator();
  const storage = new S3Storage(emulator.storageSettings());
  const key = 'uploads/bench-audio-range';
  const times = { ranged: [] as number[], wholeCopy: [] as number[] };
  const transferred = { ranged: 0, wholeCopy: 0 };
  try {
    const chunk = randomBytes(1_000_000);
    await storage.write(key, Readable.from(Array.from({ length: objectBytes / 1_000_000 }, () => chunk)));
    for (let seek = 0; seek < seeks; seek++) {
      const start = randomInt(0, objectBytes - rangeBytes);
      const end = start + rangeBytes - 1;

      let began = performance.now();
      const size = await storage.size(key);
      if (size !== objectBytes) throw new Error(`size ${size} ≠ ${objectBytes}`);
      const read = await drain(await storage.readRange(key, start, end));
      times.ranged.push(performance.now() - began);
      transferred.ranged += read;

      began = performance.now();
      await storage.withLocalFile(key, async (path) => {
        const file = await open(path);
        try {
          const copied = (await file.stat()).size;
          await file.read(Buffer.alloc(rangeBytes), 0, rangeBytes, start);
          transferred.wholeCopy += copied;
        } finally {
          await file.close();
        }
      });
      times.wholeCopy.push(performance.now() - began);
    }
  } finally {
    await storage.delete(key).catch(() => undefined);
    storage.onModuleDestroy();
    await emulator.stop();
  }

  const row = (name: string, values: number[], bytes: number): string[] => [
    name,
    fixed(percentile(values, 50), 1),
    fixed(percentile(values, 95), 1),
    fixed(bytes / seeks / 1_000_000, 3),
  ];
  const medianRatio = percentile(times.wholeCopy, 50) / percentile(times.ranged, 50);
  const markdown = [
    `${seeks} seeks of ${rangeBytes / 1024} KB in a ${objectBytes / 1_000_000} MB object on s3rver (loopback).`,
    `Load average at the start: ${loadAtStart}; at the end: ${loadAverage()}.`,
    '',
    markdownTable(
      ['read', 'median ms per seek', 'p95 ms', 'MB from S3 per seek'],
      [
        row('ranged GET (now)', times.ranged, transferred.ranged),
        row('whole object to a temp file (before)', times.wholeCopy, transferred.wholeCopy),
      ],
    ),
    '',
    `Median time ratio, before / now, measured in this run: ${fixed(medianRatio, 1)}×.`,
  ].join('\n');
  publish('audio-range', markdown, { objectBytes, seeks, rangeBytes, times, transferred, medianRatio });
}

runMain(main);
