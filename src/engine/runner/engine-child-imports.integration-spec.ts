import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { eventually } from '../../../test/support/eventually';
import { testAudio } from '../../../test/support/shared-paths';
import { defaultEngineSettings } from '../engine-settings';
import { defaultChildScriptPath, EngineRunner } from './engine-runner';

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

  it('holds the young generation before anything else loads (hold-young-generation.js is its first import)', () => {
    const names = modules.map((file) => file.split('/dist/').at(-1));
    expect(names.slice(0, 2)).toEqual([
      'engine/runner/engine-child.js',
      'common/lifecycle/hold-young-generation.js',
    ]);
  });

  it('does not load class-validator, class-transformer or any configuration slice', () => {
    expect(modules.filter((file) => /\/node_modules\/class-(validator|transformer)\//.test(file))).toEqual(
      [],
    );
    expect(
      modules.filter((file) => /\.config\.js$|\.descriptor\.js$|engine-registry\.js$/.test(file)),
    ).toEqual([]);
  });

  it('a real job loads no onnxruntime-node (the image drops it: speech detection runs on sherpa-onnx-node)', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-child-modules-'));
    const report = path.join(directory, 'modules.json');
    const child = path.join(directory, 'reporting-engine-child.js');
    // The real child, writing the modules it loaded when it exits after its job.
    fs.writeFileSync(
      child,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(Object.keys(require.cache))));
      require(${JSON.stringify(defaultChildScriptPath())});`,
    );
    try {
      const result = await new EngineRunner(defaultEngineSettings(), child).run({
        audioPath: testAudio('pocketsphinx/goforward.wav'),
        model: 'standard',
        language: 'auto',
        vocabulary: [],
        prompt: null,
        speakers: {},
      });
      expect(result.text).toBe('Go forward ten meters.');
      // The answer comes before the child exits: its report follows.
      const loaded = await eventually(
        'the child to exit and report its modules',
        async () => JSON.parse(fs.readFileSync(report, 'utf8')) as string[],
        10_000,
        20,
      );
      expect(loaded.some((file) => file.includes('/sherpa-onnx-node/'))).toBe(true);
      expect(loaded.filter((file) => file.includes('/onnxruntime-node/'))).toEqual([]);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);
});
