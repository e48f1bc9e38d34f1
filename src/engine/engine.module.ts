import { Logger, Module } from '@nestjs/common';
import { availableParallelism } from 'node:os';
import { MODEL_TIERS, type ModelTier } from '../common/model-tier-catalogue';
import { Configuration } from '../config/configuration';
import { QueuesConfig } from '../queues/queues.config';
import { EngineConfig } from './engine.config';
import { defaultEngineSettings, EngineSettings, TierEngineSettings } from './engine-settings';
import { EngineRunner } from './runner/engine-runner';
import { EngineTiers, resolveEngineTiers } from './tiers/engine-tiers';

/** Chunks per job recognised at once: configured, or the cores shared among the worker's concurrent jobs. */
export function engineParallelism(
  configured: number | undefined,
  workerConcurrency: number,
  cores: number = availableParallelism(),
): number {
  return configured ?? Math.max(1, Math.floor(cores / workerConcurrency));
}

/** Engine settings from the validated config and the boot-time tier resolution, on top of the Debian defaults. */
export function engineSettingsFrom(tiers: EngineTiers, queues: QueuesConfig): EngineSettings {
  const defaults = defaultEngineSettings();
  const engine = tiers.config.get(EngineConfig);
  return {
    ...defaults,
    tiers: Object.fromEntries(
      MODEL_TIERS.map((tier): [ModelTier, TierEngineSettings] => {
        const resolved = tiers.get(tier);
        return [tier, { recognizer: resolved.recognizerChoice, diarization: resolved.diarizerChoice }];
      }),
    ) as Record<ModelTier, TierEngineSettings>,
    speech: { ...defaults.speech, ...(engine.VAD_MODEL_PATH ? { vadModelPath: engine.VAD_MODEL_PATH } : {}) },
    parallelism: engineParallelism(engine.ENGINE_PARALLELISM, queues.WORKER_CONCURRENCY),
    maxAudioSeconds: engine.MAX_AUDIO_DURATION_HOURS * 3600,
    timeout: {
      baseMs: engine.ENGINE_TIMEOUT_MS,
      perAudioMinuteMs: engine.ENGINE_TIMEOUT_PER_AUDIO_MINUTE_MS,
    },
  };
}

/** Logs what each tier runs, once per process, so an operator sees what `auto` decided. */
function logTiers(tiers: EngineTiers): void {
  const logger = new Logger('EngineTiers');
  for (const tier of MODEL_TIERS) {
    const resolved = tiers.get(tier);
    const recognizer = tiers.registry.recognizer(resolved.recognizer);
    const detail = recognizer.describe?.(resolved.recognizerChoice.settings) ?? '';
    logger.log(`${tier}: ${resolved.recognizer}${detail}, ${resolved.diarizer} diarization`);
    for (const note of resolved.notes) logger.log(`${tier}: ${note}`);
  }
}

@Module({
  providers: [
    {
      // Resolved once at boot in every role: the worker builds engines from it, the API checks languages.
      // A misconfigured tier throws ConfigValidationError here and the process does not start.
      provide: EngineTiers,
      inject: [Configuration],
      useFactory: (configuration: Configuration) => {
        const tiers = resolveEngineTiers(configuration);
        logTiers(tiers);
        return tiers;
      },
    },
    {
      provide: EngineRunner,
      inject: [QueuesConfig, EngineTiers],
      useFactory: (queues: QueuesConfig, tiers: EngineTiers) => new EngineRunner(engineSettingsFrom(tiers, queues)),
    },
  ],
  exports: [EngineRunner, EngineTiers],
})
export class EngineModule {}
