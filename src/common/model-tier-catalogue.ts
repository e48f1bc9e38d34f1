/**
 * Everything that differs between the model tiers, in one typed table: the queue reads the priority, billing
 * the price variable, the engine's boot-time resolution (src/engine/tiers/engine-tiers.ts) the recogniser
 * and diarizer variables and defaults, and the account usage report the bucket. A new tier is one entry here
 * (plus its config variables and the database check constraint); the compiler points at every other gap.
 *
 * A plain module without Nest or config imports, so any layer can read it without import cycles.
 */
export const MODEL_TIERS = ['standard', 'premium', 'premium_jade'] as const;
export type ModelTier = (typeof MODEL_TIERS)[number];

/** The two columns of GET /v1/account/usage (`standardMinutes`/`standardCost`, `premiumMinutes`/`premiumCost`). */
export type UsageBucket = 'standard' | 'premium';

type VariableSuffix = 'STANDARD' | 'PREMIUM' | 'PREMIUM_JADE';

export interface ModelTierEntry {
  /** Bull priority: lower runs first, so premium tiers jump the standard queue. */
  queuePriority: number;
  /** The config variable holding the tier's price in EUR per audio minute. */
  priceVariable: `PRICE_${VariableSuffix}_EUR_PER_MINUTE`;
  /** The config variable choosing the recogniser (`auto`, `pocketsphinx`, `whisper-cpp`, `openai-compatible`). */
  recognizerVariable: `ENGINE_RECOGNIZER_${VariableSuffix}`;
  /** The config variable choosing the diarizer (`auto`, `classical`, `sherpa-onnx`). */
  diarizerVariable: `ENGINE_DIARIZER_${VariableSuffix}`;
  /** The config variable naming the tier's own whisper.cpp model (before the all-tiers WHISPER_CPP_MODEL). */
  whisperModelVariable: `WHISPER_CPP_MODEL_${VariableSuffix}`;
  /** The whisper.cpp model (catalogue name) a tier uses when no variable names one. */
  defaultWhisperModel: string;
  /**
   * Tiers that route German audio (asked for, or detected by the general model) to a German fine-tune: the
   * variable naming that model and its default catalogue name; null for tiers that run one model for all.
   */
  germanWhisperModel: {
    variable: `WHISPER_CPP_MODEL_${Exclude<VariableSuffix, 'STANDARD'>}_GERMAN`;
    defaultModel: string;
  } | null;
  /** Whether the `auto` diarizer is sherpa-onnx when its models are installed (otherwise classical). */
  neuralDiarizationByDefault: boolean;
  /** The column of the usage report the tier's minutes and cost are added to. */
  usageBucket: UsageBucket;
}

export const MODEL_TIER_CATALOGUE: Readonly<Record<ModelTier, Readonly<ModelTierEntry>>> = {
  standard: {
    queuePriority: 5,
    priceVariable: 'PRICE_STANDARD_EUR_PER_MINUTE',
    recognizerVariable: 'ENGINE_RECOGNIZER_STANDARD',
    diarizerVariable: 'ENGINE_DIARIZER_STANDARD',
    whisperModelVariable: 'WHISPER_CPP_MODEL_STANDARD',
    // base: about 3x faster than real time on 2 cores, a big step up from PocketSphinx for the cheap tier.
    defaultWhisperModel: 'base',
    germanWhisperModel: null,
    neuralDiarizationByDefault: false,
    usageBucket: 'standard',
  },
  premium: {
    queuePriority: 2,
    priceVariable: 'PRICE_PREMIUM_EUR_PER_MINUTE',
    recognizerVariable: 'ENGINE_RECOGNIZER_PREMIUM',
    diarizerVariable: 'ENGINE_DIARIZER_PREMIUM',
    whisperModelVariable: 'WHISPER_CPP_MODEL_PREMIUM',
    // large-v3-turbo quantised: near large-v3 accuracy at a fraction of its size (≈ 550 MB) and time.
    defaultWhisperModel: 'large-v3-turbo-q5_0',
    // "Tuned for DACH": German audio runs primeline's German fine-tune of the same turbo model (same size).
    germanWhisperModel: {
      variable: 'WHISPER_CPP_MODEL_PREMIUM_GERMAN',
      defaultModel: 'large-v3-turbo-german-q5_0',
    },
    neuralDiarizationByDefault: true,
    usageBucket: 'premium',
  },
  premium_jade: {
    queuePriority: 1,
    priceVariable: 'PRICE_PREMIUM_JADE_EUR_PER_MINUTE',
    recognizerVariable: 'ENGINE_RECOGNIZER_PREMIUM_JADE',
    diarizerVariable: 'ENGINE_DIARIZER_PREMIUM_JADE',
    whisperModelVariable: 'WHISPER_CPP_MODEL_PREMIUM_JADE',
    defaultWhisperModel: 'large-v3-turbo-q5_0',
    germanWhisperModel: {
      variable: 'WHISPER_CPP_MODEL_PREMIUM_JADE_GERMAN',
      defaultModel: 'large-v3-turbo-german-q5_0',
    },
    neuralDiarizationByDefault: true,
    usageBucket: 'premium',
  },
};

/** The tiers, most urgent first (the order a workspace's waiting jobs are handed to the workers). */
export const MODEL_TIERS_BY_QUEUE_PRIORITY: readonly ModelTier[] = [...MODEL_TIERS].sort(
  (a, b) => MODEL_TIER_CATALOGUE[a].queuePriority - MODEL_TIER_CATALOGUE[b].queuePriority,
);

/** The tiers whose usage is reported in `bucket`. */
export function tiersInUsageBucket(bucket: UsageBucket): ModelTier[] {
  return MODEL_TIERS.filter((tier) => MODEL_TIER_CATALOGUE[tier].usageBucket === bucket);
}
