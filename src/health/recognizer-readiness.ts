import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import type { EngineSettings } from '../engine/engine-settings';
import type { ModelTier } from '../engine/engine.types';

/**
 * Whether a tier's recogniser could start now, from its files alone (no recognition is run): the whisper.cpp
 * model readable and non-empty and its server executable, or PocketSphinx's model files readable. A remote
 * OpenAI-compatible engine is not probed (a request per probe would cost its operator); it reports its URL.
 * Resolves with what was checked; rejects naming the missing part.
 */
export async function checkRecognizer(
  settings: EngineSettings,
  tier: ModelTier,
): Promise<Record<string, string>> {
  const tierSettings = settings.tiers[tier];
  switch (tierSettings.recognizer) {
    case 'whisper-cpp': {
      const whisper = tierSettings.whisperCpp;
      if (!whisper) throw new Error('whisper-cpp without settings');
      await readable(whisper.modelPath, 'whisper model');
      if ((await stat(whisper.modelPath)).size === 0)
        throw new Error(`whisper model ${whisper.modelPath} is empty`);
      await access(whisper.binaryPath, constants.X_OK).catch(() => {
        throw new Error(`whisper server ${whisper.binaryPath} is missing or not executable`);
      });
      return { recognizer: 'whisper-cpp' };
    }
    case 'pocketsphinx': {
      const { acousticModelPath, languageModelPath, dictionaryPath } = settings.pocketsphinx;
      await readable(acousticModelPath, 'pocketsphinx acoustic model');
      await readable(languageModelPath, 'pocketsphinx language model');
      await readable(dictionaryPath, 'pocketsphinx dictionary');
      return { recognizer: 'pocketsphinx' };
    }
    case 'openai-compatible':
      return { recognizer: 'openai-compatible', note: 'remote engine, not probed' };
  }
}

async function readable(file: string, what: string): Promise<void> {
  await access(file, constants.R_OK).catch(() => {
    throw new Error(`${what} ${file} is missing or unreadable`);
  });
}
