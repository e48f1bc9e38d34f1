import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { defaultChildScriptPath } from './engine-runner';

/**
 * The engine child's module graph, as a fresh node process loads it: only what decoding needs. Its settings
 * arrive validated from the parent, so the validation library (238 ms of its start-up in issue 36) and the
 * configuration slices stay out.
 */
describe('engine child imports', () => {
  let modules: string[];

  beforeAll(() => {
    if (!fs.existsSync(defaultChildScriptPath()))
      throw new Error(`${defaultChildScriptPath()} is missing: npm run build`);
    // Without an IPC channel the child loads, says nothing to nobody, and the process ends after the print.
    const script = `require(${JSON.stringify(defaultChildScriptPath())});
      process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
    modules = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as string[];
  });

  it('loads the pipeline and the engines it builds', () => {
    const names = modules.map((file) => file.split('/dist/').at(-1));
    expect(names).toEqual(
      expect.arrayContaining([
        'engine/pipeline/transcription-pipeline.js',
        'engine/pocketsphinx/pocketsphinx.factory.js',
        'engine/whisper-cpp/whisper-cpp.factory.js',
      ]),
    );
  });

  it('does not load class-validator, class-transformer or any configuration slice', () => {
    expect(modules.filter((file) => /\/node_modules\/class-(validator|transformer)\//.test(file))).toEqual(
      [],
    );
    expect(
      modules.filter((file) => /\.config\.js$|\.descriptor\.js$|engine-registry\.js$/.test(file)),
    ).toEqual([]);
  });
});
