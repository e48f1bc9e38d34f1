import { join } from 'node:path';
import { testAudio } from '../support/shared-paths';
import { startTestApp, TestApp } from '../support/test-app';
import { upload, waitForTerminal } from '../support/transcriptions';
import {
  syntheticWhisperModel,
  syntheticWhisperText,
  syntheticWhisperVariantModel,
  type SyntheticWhisperVariant,
} from '../support/whisper-cpp/synthetic-whisper-model';

type Word = { word: string };

/**
 * The premium tiers route by language: German audio (asked for, or detected by the general model) goes to the
 * German fine-tune, everything else to the general model. Two synthetic whisper.cpp models that answer
 * differently stand for the two (test/support/whisper-cpp/synthetic-whisper-model.ts), run by the real
 * whisper-server:
 * - "German" model: detects `de`, says " w400 w500 w600";
 * - general models: say " w100 w200 w300", one detecting `en` (premium), one detecting `de` (premium_jade).
 */
describe('premium routes German audio to the German model', () => {
  const GERMAN: SyntheticWhisperVariant = { language: 'de', words: [400, 500, 600] };
  const GENERAL_ENGLISH: SyntheticWhisperVariant = { language: 'en' };
  const wordsOf = (variant: SyntheticWhisperVariant): string[] =>
    syntheticWhisperText(variant).trim().split(' ');
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp({
      ENGINE_RECOGNIZER_PREMIUM: 'whisper-cpp',
      WHISPER_CPP_MODEL_PREMIUM: syntheticWhisperVariantModel(GENERAL_ENGLISH),
      WHISPER_CPP_MODEL_PREMIUM_GERMAN: syntheticWhisperVariantModel(GERMAN),
      ENGINE_RECOGNIZER_PREMIUM_JADE: 'whisper-cpp',
      WHISPER_CPP_MODEL_PREMIUM_JADE: syntheticWhisperModel(),
      WHISPER_CPP_MODEL_PREMIUM_JADE_GERMAN: syntheticWhisperVariantModel(GERMAN),
      WHISPER_CPP_BIN_DIR:
        process.env.WHISPER_CPP_BIN_DIR ?? join(__dirname, '..', '..', '.tools', 'whisper.cpp', 'bin'),
    });
    ({ apiKey } = await t.createWorkspace({ name: 'German premium', balanceEur: 1, freeTranscriptions: 0 }));
  });
  afterAll(() => t.close());

  const transcribe = async (
    fields: Record<string, string>,
  ): Promise<{ words: string[]; detectedLanguage: unknown }> => {
    const created = await upload(t, apiKey, testAudio('whisper.cpp/jfk.wav'), fields);
    expect(created.status).toBe(202);
    const { status, body } = await waitForTerminal(t, apiKey, created.body.data.id);
    expect(body.data.errorMessage).toBeNull();
    expect(status).toBe('completed');
    const words = (body.data.resultJson as { words: Word[] }).words.map((word) => word.word);
    return {
      words: words.slice(0, 3),
      detectedLanguage: body.data.detectedLanguage,
    };
  };

  it('language de given → the German model', async () => {
    const result = await transcribe({ model: 'premium', language: 'de' });
    expect(result.words).toEqual(wordsOf(GERMAN));
    expect(result.detectedLanguage).toBe('de');
  });

  it('language auto, detected as German by the general model → the German model', async () => {
    const result = await transcribe({ model: 'premium_jade', language: 'auto' });
    expect(result.words).toEqual(wordsOf(GERMAN));
    expect(result.detectedLanguage).toBe('de');
  });

  it('language auto, detected as English → the general model', async () => {
    const result = await transcribe({ model: 'premium', language: 'auto' });
    expect(result.words).toEqual(wordsOf(GENERAL_ENGLISH));
    expect(result.detectedLanguage).toBe('en');
  });

  it('another language given (fr) → the general model', async () => {
    const result = await transcribe({ model: 'premium', language: 'fr' });
    expect(result.words).toEqual(wordsOf(GENERAL_ENGLISH));
  });
});
