import * as fs from 'node:fs';
import * as path from 'node:path';

/** The repository root: the nearest folder above this file with a package.json (works from TS and compiled JS). */
function repositoryRoot(): string {
  let directory = __dirname;
  while (!fs.existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`no package.json above ${__dirname}`);
    directory = parent;
  }
  return directory;
}

/** The shared folder with test clips (never copied into the repo); SHARED_DIR overrides the default. */
export const SHARED_DIR = process.env.SHARED_DIR ?? path.resolve(repositoryRoot(), '../shared');

/** Absolute path of a clip from the shared audio folder, e.g. sharedAudio('pocketsphinx/goforward.wav'). */
export function sharedAudio(relativePath: string): string {
  return path.join(SHARED_DIR, 'audio', relativePath);
}
