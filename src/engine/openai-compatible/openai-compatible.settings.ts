import { DEFAULT_MAX_PROMPT_CHARS } from '../whisper-family/initial-prompt.builder';

/**
 * A remote OpenAI-compatible transcription server (OpenAI itself, speaches, vLLM, whisper.cpp's server, ...).
 * Its descriptor (openai-compatible.descriptor.ts) builds it from the OPENAI_STT_* variables
 * (openai-compatible.config.ts).
 */
export interface OpenAiCompatibleRecognizerSettings {
  /** Scheme, host and port, e.g. http://gpu-box:8000 (a trailing /v1 is tolerated). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer ...`; empty or unset sends no header. */
  apiKey?: string | null;
  /** The server's model name: whisper-1, Systran/faster-whisper-large-v3, openai/whisper-large-v3, ... */
  model: string;
  /** Per chunk, from sending the request to having read the whole answer (ENGINE_TIMEOUT after). */
  timeoutMs: number;
  /** Endpoint path; whisper.cpp's server answers on /inference unless started with --inference-path. */
  path?: string;
  /** Vocabulary prompt budget in characters. */
  maxPromptChars?: number;
}

export const OPENAI_TRANSCRIPTIONS_PATH = '/v1/audio/transcriptions';
export { DEFAULT_MAX_PROMPT_CHARS };

/** baseUrl + path, without doubling slashes or a /v1 that both carry. */
export function transcriptionUrl(baseUrl: string, path: string = OPENAI_TRANSCRIPTIONS_PATH): string {
  let base = baseUrl.replace(/\/+$/, '');
  const suffix = path.startsWith('/') ? path : `/${path}`;
  if (base.endsWith('/v1') && suffix.startsWith('/v1/')) base = base.slice(0, -3);
  return `${base}${suffix}`;
}
