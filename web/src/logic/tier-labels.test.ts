import { describe, expect, it } from 'vitest';
import type { Tier } from '../api/types';
import { languagesLabel, sameEngineNote, tierDescription, tierOptionLabel } from './tier-labels';

const pocketsphinx = (tier: Tier['tier'], pricePerMinute: number): Tier => ({
  tier,
  engine: 'pocketsphinx',
  engineName: 'PocketSphinx',
  model: 'en-us',
  modelsByLanguage: {},
  languages: ['en'],
  streaming: true,
  diarizer: 'classical',
  available: true,
  pricePerMinute,
});

const whisper: Tier = {
  tier: 'premium',
  engine: 'whisper-cpp',
  engineName: 'whisper.cpp',
  model: 'large-v3-turbo-q5_0',
  modelsByLanguage: { de: 'large-v3-turbo-german-q5_0' },
  languages: Array.from({ length: 99 }, () => 'en' as const),
  streaming: false,
  diarizer: 'sherpa-onnx',
  available: false,
  pricePerMinute: 0.0045,
};

describe('tier labels', () => {
  it('names the engine and model of each tier in its option, and marks an unavailable one', () => {
    expect(tierOptionLabel(pocketsphinx('standard', 0.003))).toBe('standard — PocketSphinx en-us');
    expect(tierOptionLabel(whisper)).toBe('premium — whisper.cpp large-v3-turbo-q5_0 (unavailable)');
  });

  it('describes the chosen tier: engine, model (and the per-language one), languages, live, price', () => {
    expect(tierDescription(pocketsphinx('premium', 0.0045))).toBe(
      'Runs PocketSphinx (model en-us) · English only · also live · 0.0045 EUR per audio minute.',
    );
    expect(tierDescription(whisper)).toBe(
      'Runs whisper.cpp (model large-v3-turbo-q5_0, large-v3-turbo-german-q5_0 for de) · all 99 languages · ' +
        'files only, not live · 0.0045 EUR per audio minute. Unavailable on this server now: its model files are missing.',
    );
    expect(tierDescription(pocketsphinx('standard', 0))).toContain('not billed');
  });

  it('says when other tiers run the very same engine and model (the same text at another price)', () => {
    const tiers = [
      pocketsphinx('standard', 0.003),
      pocketsphinx('premium', 0.0045),
      pocketsphinx('premium_jade', 0.006),
    ];
    expect(sameEngineNote(tiers[0], tiers)).toBe(
      'premium and premium_jade run the same PocketSphinx en-us: the same text as standard, at their own price.',
    );
    expect(sameEngineNote(tiers[0], [tiers[0], whisper])).toBeNull();
  });

  it('labels languages', () => {
    expect(languagesLabel(['en'])).toBe('English only');
    expect(languagesLabel(['de'])).toBe('de only');
    expect(languagesLabel(['de', 'en'])).toBe('2 languages');
  });
});
