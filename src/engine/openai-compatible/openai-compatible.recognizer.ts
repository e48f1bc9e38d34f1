import { abortReason } from '../abort.util';
import {
  EngineError,
  RecognitionChunk,
  RecognitionOptions,
  RecognitionOutput,
  Recognizer,
} from '../engine.types';
import { buildInitialPrompt } from '../whisper-family/initial-prompt.builder';
import { encodeWav16kMono } from '../whisper-family/wav.encoder';
import { isWhisperLanguage, toWhisperEngineLanguage } from '../whisper-family/whisper-language.codes';
import { toFileTime } from '../whisper-family/whisper-token.merger';
import {
  DEFAULT_MAX_PROMPT_CHARS,
  OpenAiCompatibleRecognizerSettings,
  transcriptionUrl,
} from './openai-compatible.settings';
import { errorMessageOf, parseTranscriptionResponse } from '../whisper-family/openai-transcription.parser';

/**
 * Sends each chunk to an OpenAI-compatible `/v1/audio/transcriptions` endpoint, for operators who run
 * Whisper-class engines on a GPU machine elsewhere. Uses Node's global fetch/FormData/Blob.
 */
export class OpenAiCompatibleRecognizer implements Recognizer {
  readonly name = 'openai-compatible';
  readonly languages = 'all' as const;
  private readonly url: string;
  /** Aborted by close(), so in-flight requests end with the recogniser. */
  private readonly closing = new AbortController();

  constructor(private readonly settings: OpenAiCompatibleRecognizerSettings) {
    this.url = transcriptionUrl(settings.baseUrl, settings.path);
  }

  async recognize(chunk: RecognitionChunk, options: RecognitionOptions): Promise<RecognitionOutput> {
    const { signal } = options;
    if (signal.aborted) throw abortReason(signal);
    if (this.closing.signal.aborted)
      throw new EngineError('ENGINE_FAILED', 'OpenAI-compatible recogniser is closed');
    const language = options.language === 'auto' ? 'auto' : options.language.toLowerCase();
    if (language !== 'auto' && !isWhisperLanguage(language)) {
      throw new EngineError(
        'UNSUPPORTED_LANGUAGE',
        `Whisper engines do not know language '${options.language}'`,
      );
    }

    const chunkSeconds = chunk.samples.length / 16000;
    // Nothing to send; some servers answer 400 to an empty file.
    if (chunk.samples.length === 0)
      return { words: [], detectedLanguage: language === 'auto' ? null : language };
    const form = new FormData();
    form.append('file', new Blob([encodeWav16kMono(chunk.samples)], { type: 'audio/wav' }), 'chunk.wav');
    form.append('model', this.settings.model);
    form.append('response_format', 'verbose_json');
    form.append('timestamp_granularities[]', 'word');
    form.append('timestamp_granularities[]', 'segment');
    // OpenAI's convention: no language field means "detect it".
    if (language !== 'auto') form.append('language', toWhisperEngineLanguage(language));
    const prompt = buildInitialPrompt(
      options.vocabulary,
      options.prompt,
      this.settings.maxPromptChars ?? DEFAULT_MAX_PROMPT_CHARS,
    );
    if (prompt !== '') form.append('prompt', prompt);

    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`;

    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.settings.timeoutMs);
    let status: number;
    let text: string;
    const send = () =>
      fetch(this.url, {
        method: 'POST',
        body: form,
        headers,
        signal: AbortSignal.any([signal, timeout.signal, this.closing.signal]),
      });
    try {
      // A kept-alive connection that the server closed just as it was reused fails before any answer
      // (EPIPE, ECONNRESET): that is not the server failing, so the chunk is sent once more.
      const response = await send().catch((err: unknown) => {
        if (!isClosedKeptAliveConnection(err) || timeout.signal.aborted || signal.aborted) throw err;
        return send();
      });
      status = response.status;
      // The body is read under the same signals, so a server that stalls mid-answer also times out.
      text = await response.text();
    } catch (err) {
      if (signal.aborted) throw abortReason(signal);
      if (timeout.signal.aborted) {
        throw new EngineError(
          'ENGINE_TIMEOUT',
          `${this.url} did not answer within ${this.settings.timeoutMs} ms`,
        );
      }
      if (this.closing.signal.aborted) {
        throw new EngineError('ENGINE_FAILED', 'OpenAI-compatible recogniser closed during the request');
      }
      throw new EngineError('ENGINE_FAILED', `cannot reach ${this.url}: ${describeFetchError(err)}`);
    } finally {
      clearTimeout(timer);
    }

    if (status < 200 || status > 299) {
      // 4xx (bad model name, bad key, rejected audio) and 5xx alike: the job's retry budget decides.
      throw new EngineError('ENGINE_FAILED', `${this.url} answered HTTP ${status}: ${errorMessageOf(text)}`);
    }
    let parsed;
    try {
      parsed = parseTranscriptionResponse(JSON.parse(text) as unknown, chunkSeconds);
    } catch (err) {
      throw new EngineError(
        'ENGINE_FAILED',
        `${this.url} sent an unreadable transcription: ${(err as Error).message}: ${errorMessageOf(text)}`,
      );
    }
    return {
      words: toFileTime(parsed.words, chunk.offset, chunkSeconds),
      detectedLanguage: parsed.language ?? (language === 'auto' ? null : language),
    };
  }

  async close(): Promise<void> {
    this.closing.abort();
  }
}

/**
 * fetch's own message is only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, ...) is in `cause`.
 * Duck-typed rather than instanceof: undici's errors may come from another realm (jest's sandbox, say).
 */
function describeFetchError(err: unknown): string {
  const cause = field(err, 'cause');
  const code = field(cause, 'code') ?? field(err, 'code');
  const raw = field(cause, 'message') ?? field(err, 'message');
  const message = typeof raw === 'string' ? raw : 'unknown network error';
  return typeof code === 'string' ? `${code} (${message})` : message;
}

function isClosedKeptAliveConnection(err: unknown): boolean {
  const code = field(field(err, 'cause'), 'code') ?? field(err, 'code');
  return code === 'EPIPE' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET';
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && name in value
    ? (value as Record<string, unknown>)[name]
    : undefined;
}
