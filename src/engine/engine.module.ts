import { Logger, Module } from '@nestjs/common';
import { availableParallelism } from 'node:os';
import { MODEL_TIERS } from '../common/model-tier-catalogue';
import { EngineSettingsPending } from '../config/engine-settings-pending';
import { QueuesConfig } from '../queues/queues.config';
import type { ModelTier } from './engine.types';
import { defaultEngineSettings, EngineSettings, TierEngineSettings } from './engine-settings';
import { EngineRunner } from './runner/engine-runner';
import { EngineTiers, resolveEngineTiers, type ResolvedTier } from './tiers/engine-tiers';
import { whisperServerPath } from './whisper-cpp/whisper-cpp.settings';

/** Chunks per job recognised at once: configured, or the cores shared among the worker's concurrent jobs. */
export function engineParallelism(
  config: EngineSettingsPending,
  queues: QueuesConfig,
  cores: number = availableParallelism(),
): number {
  return config.ENGINE_PARALLELISM ?? Math.max(1, Math.floor(cores / queues.WORKER_CONCURRENCY));
}

/** Engine settings from the validated config and the boot-time tier resolution, on top of the Debian defaults. */
export function engineSettingsFrom(
  config: EngineSettingsPending,
  queues: QueuesConfig,
  tiers: EngineTiers = resolveEngineTiers(config),
): EngineSettings {
  const defaults = defaultEngineSettings();
  const tierSettings = (resolved: ResolvedTier): TierEngineSettings => ({
    recognizer: resolved.recognizer,
    whisperCpp: resolved.whisperModelPath
      ? {
          binaryPath: whisperServerPath(tiers.whisperCppBinDir),
          modelPath: resolved.whisperModelPath,
          threads: config.WHISPER_CPP_THREADS,
        }
      : undefined,
    germanWhisperCpp: resolved.germanWhisperModelPath
      ? {
          binaryPath: whisperServerPath(tiers.whisperCppBinDir),
          modelPath: resolved.germanWhisperModelPath,
          threads: config.WHISPER_CPP_THREADS,
        }
      : undefined,
    diarization: resolved.sherpaOnnx
      ? { kind: 'sherpa-onnx', sherpaOnnx: resolved.sherpaOnnx }
      : { kind: 'classical' },
  });
  return {
    ...defaults,
    tiers: Object.fromEntries(MODEL_TIERS.map((tier) => [tier, tierSettings(tiers.get(tier))])) as Record<
      ModelTier,
      TierEngineSettings
    >,
    speech: { ...defaults.speech, ...(config.VAD_MODEL_PATH ? { vadModelPath: config.VAD_MODEL_PATH } : {}) },
    openaiCompatible: config.OPENAI_STT_BASE_URL
      ? {
          baseUrl: config.OPENAI_STT_BASE_URL,
          apiKey: config.OPENAI_STT_API_KEY ?? null,
          model: config.OPENAI_STT_MODEL,
          timeoutMs: config.OPENAI_STT_TIMEOUT_MS,
        }
      : undefined,
    parallelism: engineParallelism(config, queues),
    maxAudioSeconds: config.MAX_AUDIO_DURATION_HOURS * 3600,
    timeout: {
      baseMs: config.ENGINE_TIMEOUT_MS,
      perAudioMinuteMs: config.ENGINE_TIMEOUT_PER_AUDIO_MINUTE_MS,
    },
  };
}

/** Logs what each tier runs, once per process, so an operator sees what `auto` decided. */
function logTiers(tiers: EngineTiers): void {
  const logger = new Logger('EngineTiers');
  for (const tier of MODEL_TIERS) {
    const resolved = tiers.get(tier);
    const german = resolved.germanWhisperModelPath ? `; German: ${resolved.germanWhisperModelPath}` : '';
    const model = resolved.whisperModelPath ? ` (${resolved.whisperModelPath}${german})` : '';
    logger.log(`${tier}: ${resolved.recognizer}${model}, ${resolved.diarizer} diarization`);
    for (const note of resolved.notes) logger.log(`${tier}: ${note}`);
  }
}

@Module({
  providers: [
    {
      // Resolved once at boot in every role: the worker builds engines from it, the API checks languages.
      // A misconfigured tier throws ConfigValidationError here and the process does not start.
      provide: EngineTiers,
      inject: [EngineSettingsPending],
      useFactory: (config: EngineSettingsPending) => {
        const tiers = resolveEngineTiers(config);
        logTiers(tiers);
        return tiers;
      },
    },
    {
      provide: EngineRunner,
      inject: [EngineSettingsPending, QueuesConfig, EngineTiers],
      useFactory: (config: EngineSettingsPending, queues: QueuesConfig, tiers: EngineTiers) =>
        new EngineRunner(engineSettingsFrom(config, queues, tiers)),
    },
  ],
  exports: [EngineRunner, EngineTiers],
})
export class EngineModule {}
