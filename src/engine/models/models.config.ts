import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { toInt } from '../../config/config-transformers';

/** Where models live and how `models:pull` fetches them; the tiers read MODELS_DIR to find installed models. */
export class ModelsConfig {
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
}
