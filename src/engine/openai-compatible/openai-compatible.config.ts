import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Min } from 'class-validator';
import { toInt } from '../../config/config-transformers';

/** The variables the openai-compatible recogniser reads. */
export class OpenAiSttConfig {
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
