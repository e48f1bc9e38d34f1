import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { join } from 'node:path';
import { defaultEngineSettings, EngineSettings } from './engine-settings';
import { defaultWhisperCppBinDir, whisperCliPath } from './whisper-cpp/whisper-cpp.settings';
import { EngineRunner } from './runner/engine-runner';

/** Engine settings from the validated config, on top of the Debian defaults. */
export function engineSettingsFrom(config: AppConfig): EngineSettings {
  const defaults = defaultEngineSettings();
  return {
    ...defaults,
    recognizers: {
      standard: config.ENGINE_RECOGNIZER_STANDARD,
      premium: config.ENGINE_RECOGNIZER_PREMIUM,
      premium_jade: config.ENGINE_RECOGNIZER_PREMIUM_JADE,
    },
    speech: { ...defaults.speech, ...(config.VAD_MODEL_PATH ? { vadModelPath: config.VAD_MODEL_PATH } : {}) },
    whisperCpp: config.WHISPER_CPP_MODEL
      ? {
          binaryPath: whisperCliPath(
            config.WHISPER_CPP_BIN_DIR ?? defaultWhisperCppBinDir(join(__dirname, '..', '..')),
          ),
          modelPath: config.WHISPER_CPP_MODEL,
          threads: config.WHISPER_CPP_THREADS,
        }
      : undefined,
    openaiCompatible: config.OPENAI_STT_BASE_URL
      ? {
          baseUrl: config.OPENAI_STT_BASE_URL,
          apiKey: config.OPENAI_STT_API_KEY ?? null,
          model: config.OPENAI_STT_MODEL,
          timeoutMs: config.OPENAI_STT_TIMEOUT_MS,
        }
      : undefined,
    timeoutMs: config.ENGINE_TIMEOUT_MS,
  };
}

@Module({
  providers: [
    {
      provide: EngineRunner,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new EngineRunner(engineSettingsFrom(config)),
    },
  ],
  exports: [EngineRunner],
})
export class EngineModule {}
