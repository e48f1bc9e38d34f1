import * as fs from 'node:fs';
import * as path from 'node:path';

/** The repository root: the nearest folder above this file with a package.json (works from TS and compiled JS). */
export function repositoryRoot(): string {
  let directory = __dirname;
  while (!fs.existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`no package.json above ${__dirname}`);
    directory = parent;
  }
  return directory;
}

/**
 * The clips the tests use, in the repository (test/fixtures/audio, same relative paths as in ../shared/audio;
 * sources and licences in its ATTRIBUTION.md), so `npm test` works on a fresh clone.
 */
export const TEST_AUDIO_DIR = path.join(repositoryRoot(), 'test', 'fixtures', 'audio');

/** Absolute path of a test clip or reference file, e.g. testAudio('pocketsphinx/goforward.wav'). */
export function testAudio(relativePath: string): string {
  return path.join(TEST_AUDIO_DIR, relativePath);
}

/**
 * The larger shared clip set beside the repository, for benchmarks only (tests never read it); SHARED_DIR
 * overrides the default. It may be missing: benchmarks check with requireSharedAudio().
 */
export const SHARED_DIR = process.env.SHARED_DIR ?? path.resolve(repositoryRoot(), '../shared');

/** The shared audio folder, or an error saying where it was looked for and how to point at it. */
export function requireSharedAudio(purpose: string): string {
  const audio = path.join(SHARED_DIR, 'audio');
  if (!fs.existsSync(path.join(audio, 'MANIFEST.tsv'))) {
    throw new Error(
      `${purpose} reads the shared clip set, which is missing: no ${path.join(audio, 'MANIFEST.tsv')}. ` +
        'Put the shared folder beside the repository (../shared) or set SHARED_DIR to it. ' +
        '(Tests do not need it: they use test/fixtures/audio.)',
    );
  }
  return audio;
}
