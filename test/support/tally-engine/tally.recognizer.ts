/**
 * A test engine registered through the engine registry's public API only (test/e2e/engine-registry.e2e-spec.ts):
 * it "recognises" every speech chunk as the word `tally`, spanning the chunk. Its "model" is any file named by
 * TALLY_MODEL_FILE; TALLY_LANGUAGES says what it serves.
 *
 * The engine child process loads this file by path (`modulePath`) with Node's own TypeScript type stripping,
 * so it keeps to erasable syntax: type-only imports from src/, decorators applied as plain calls.
 */
import { IsOptional, IsString, Matches } from 'class-validator';
import { accessSync, constants, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Recognizer } from '../../../src/engine/engine.types';
import type { RecognizerDescriptor, ResolveContext } from '../../../src/engine/registry/engine-descriptor';

export class TallyConfig {
  TALLY_MODEL_FILE?: string = undefined;
  TALLY_LANGUAGES = 'en,de';
}
IsOptional()(TallyConfig.prototype, 'TALLY_MODEL_FILE');
IsString()(TallyConfig.prototype, 'TALLY_MODEL_FILE');
Matches(/^[a-z]{2}(,[a-z]{2})*$/, { message: 'TALLY_LANGUAGES must be comma-separated ISO 639-1 codes' })(
  TallyConfig.prototype,
  'TALLY_LANGUAGES',
);

export interface TallySettings {
  modelFile: string;
  languages: string[];
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function createTallyRecognizer(settings: TallySettings): Recognizer {
  return {
    name: 'tally',
    languages: new Set(settings.languages),
    recognize: async (chunk) => ({
      words: [{ word: 'tally', start: chunk.offset, end: chunk.offset + chunk.samples.length / 16000 }],
      detectedLanguage: null,
    }),
    close: async () => undefined,
  };
}

export const tallyRecognizer: RecognizerDescriptor<TallySettings> = {
  kind: 'tally',
  configSlice: TallyConfig,
  // Before whisper-cpp, on premium_jade only: `auto` takes it there when its model file is present.
  autoRank: 0,
  autoTiers: ['premium_jade'],
  streamsLive: false,
  spellsNumbersOut: false,
  reportDefaults: { tallyModelFile: null },
  engineName: 'Tally (test engine)',
  model: (settings) => ({ name: basename(settings.modelFile) }),

  resolve(context: ResolveContext) {
    const { TALLY_MODEL_FILE: file, TALLY_LANGUAGES } = context.config.get(TallyConfig);
    if (!file || !isFile(file)) {
      const why = file ? `no file at ${file}` : 'TALLY_MODEL_FILE is not set';
      if (context.explicit)
        return { outcome: 'misconfigured', problems: [`${context.variable}=tally: ${why}`] };
      return { outcome: 'unavailable', reason: why };
    }
    return {
      outcome: 'resolved',
      settings: { modelFile: file, languages: TALLY_LANGUAGES.split(',') },
      autoReason: `with ${file}`,
      report: { tallyModelFile: file },
    };
  },

  languages: (settings) => new Set(settings.languages),

  create: (settings) => createTallyRecognizer(settings),

  checkReadiness: async (settings) => {
    try {
      accessSync(settings.modelFile, constants.R_OK);
    } catch {
      throw new Error(`tally model ${settings.modelFile} is missing or unreadable`);
    }
    return { recognizer: 'tally' };
  },
};
