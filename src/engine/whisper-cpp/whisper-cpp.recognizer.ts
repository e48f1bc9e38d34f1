import { constants as fsConstants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { abortReason } from '../abort.util';
import {
  EngineError,
  RecognitionChunk,
  RecognitionOptions,
  RecognitionOutput,
  Recognizer,
} from '../engine.types';
import { errorMessageOf, parseTranscriptionResponse } from '../whisper-family/openai-transcription.parser';
import { buildInitialPrompt } from '../whisper-family/initial-prompt.builder';
import { encodeWav16kMono } from '../whisper-family/wav.encoder';
import { isWhisperLanguage, toWhisperEngineLanguage } from '../whisper-family/whisper-language.codes';
import {
  DEFAULT_MAX_PROMPT_CHARS,
  WHISPER_CPP_DEFAULT_TIMEOUT_MS,
  WhisperCppRecognizerSettings,
} from './whisper-cpp.settings';
import { logTail, WhisperServerProcess, WhisperServerStartError } from './whisper-server.process';
import { toFileTime } from '../whisper-family/whisper-token.merger';

const SAMPLE_RATE = 16000;
/** How long a broken request waits for the server's exit, to report how it ended. */
const EXIT_GRACE_MS = 200;

export interface WhisperCppPoolOptions {
  /** How many recognize() calls the pipeline keeps in flight (ENGINE_PARALLELISM). Default 1. */
  parallelism?: number;
  /**
   * whisper-server processes to run; each gets threads ÷ servers compute threads and serves one chunk at a
   * time, further calls queue. Default: see defaultServerCount. bench/whisper-parallel.ts sets it to compare.
   */
  servers?: number;
}

/**
 * How many servers serve `parallelism` concurrent chunks: one server per concurrent chunk, sharing the
 * threads (never more servers than threads), not one server with all threads and the chunks queued. Measured with
 * bench/whisper-parallel.ts on 2 cores (docs/benchmarks.md, "whisper.cpp: threads per chunk vs chunks in
 * parallel"): a job of four 15 s chunks took 0.64 / 0.77 / 0.46 of the queued layout's time with the micro /
 * tiny / base-sized models, counting the server start each job pays; on already running servers the two were
 * level except tiny (1.45, but its random decoder then emitted different text, so not the same work). The
 * price is memory: each server holds its own copy of the model.
 */
export function defaultServerCount(parallelism: number, threads: number): number {
  return Math.max(1, Math.min(parallelism, threads));
}

/** One server place: its process is started on first use and again after it was killed. */
interface Slot {
  server: WhisperServerProcess | null;
}

interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (err: Error) => void;
}

/**
 * Recognises a job's chunks through whisper.cpp's own `whisper-server`, so the model is loaded once per job
 * (per server) instead of once per chunk. One instance serves one job; the pipeline may call recognize()
 * concurrently. Servers start lazily on the first chunk that needs one, each on a free loopback port, and are
 * killed by close(), on abort of a chunk they serve, and on a chunk timeout.
 */
export class WhisperCppRecognizer implements Recognizer {
  readonly name = 'whisper.cpp';
  readonly languages = 'all' as const;

  private readonly timeoutMs: number;
  private readonly threadsPerServer: number;
  private readonly free: Slot[];
  private readonly slots: Slot[];
  private readonly waiters: Waiter[] = [];
  /** Aborted by close(): ends server starts and requests in flight. */
  private readonly closing = new AbortController();
  /** A start-up failure that every later start would repeat (missing binary, unloadable model). */
  private fatal: EngineError | null = null;
  private filesChecked: Promise<void> | null = null;

  constructor(
    private readonly settings: WhisperCppRecognizerSettings,
    pool: WhisperCppPoolOptions = {},
  ) {
    this.timeoutMs = settings.timeoutMs ?? WHISPER_CPP_DEFAULT_TIMEOUT_MS;
    const parallelism = Math.max(1, Math.floor(pool.parallelism ?? 1));
    const servers = Math.max(
      1,
      Math.floor(pool.servers ?? defaultServerCount(parallelism, settings.threads)),
    );
    this.threadsPerServer = Math.max(1, Math.floor(settings.threads / servers));
    this.slots = Array.from({ length: servers }, () => ({ server: null }));
    this.free = [...this.slots];
  }

  async recognize(chunk: RecognitionChunk, options: RecognitionOptions): Promise<RecognitionOutput> {
    const { signal } = options;
    if (signal.aborted) throw abortReason(signal);
    this.throwIfClosed();
    const language = options.language === 'auto' ? 'auto' : options.language.toLowerCase();
    if (language !== 'auto' && !isWhisperLanguage(language)) {
      throw new EngineError(
        'UNSUPPORTED_LANGUAGE',
        `whisper.cpp does not know language '${options.language}'`,
      );
    }
    await this.checkFiles();
    // whisper.cpp has nothing to say about empty audio (and would reject a WAV without samples).
    if (chunk.samples.length === 0)
      return { words: [], detectedLanguage: language === 'auto' ? null : language };

    const form = new FormData();
    const wav = encodeWav16kMono(chunk.samples);
    form.append('file', new Blob([wav], { type: 'audio/wav' }), 'chunk.wav');
    form.append('response_format', 'verbose_json');
    form.append('language', language === 'auto' ? 'auto' : toWhisperEngineLanguage(language));
    const prompt = buildInitialPrompt(
      options.vocabulary,
      options.prompt,
      this.settings.maxPromptChars ?? DEFAULT_MAX_PROMPT_CHARS,
    );
    if (prompt !== '') form.append('prompt', prompt);

    const slot = await this.acquire(signal);
    let body: string;
    try {
      body = await this.infer(slot, form, signal);
    } finally {
      this.release(slot);
    }
    const chunkSeconds = chunk.samples.length / SAMPLE_RATE;
    let parsed;
    try {
      parsed = parseTranscriptionResponse(JSON.parse(body) as unknown, chunkSeconds);
    } catch (err) {
      throw new EngineError(
        'ENGINE_FAILED',
        `whisper-server sent an unreadable answer: ${(err as Error).message}: ${errorMessageOf(body)}`,
      );
    }
    return {
      words: toFileTime(parsed.words, chunk.offset, chunkSeconds),
      detectedLanguage: parsed.language ?? (language === 'auto' ? null : language),
    };
  }

  async close(): Promise<void> {
    this.closing.abort();
    const closed = this.closedError();
    for (const waiter of this.waiters.splice(0)) waiter.reject(closed);
    await Promise.all(this.slots.flatMap((slot) => (slot.server ? [slot.server.kill()] : [])));
  }

  /** Runs one request on the slot's server, starting it first if needed. Returns the answer's body. */
  private async infer(slot: Slot, form: FormData, signal: AbortSignal): Promise<string> {
    const server = await this.serverOf(slot, signal);
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.timeoutMs);
    try {
      const answer = await server.inference(
        form,
        AbortSignal.any([signal, timeout.signal, this.closing.signal]),
      );
      if (answer.status !== 200) {
        throw new EngineError(
          'ENGINE_FAILED',
          `whisper-server answered HTTP ${answer.status}: ${errorMessageOf(answer.body)}: ${logTail(answer.log)}`,
        );
      }
      return answer.body;
    } catch (err) {
      if (err instanceof EngineError) throw err;
      if (signal.aborted || timeout.signal.aborted || this.closing.signal.aborted) {
        // Mid-chunk, so of no further use: killed before we answer, leaving no process computing for nobody.
        await server.kill();
        if (signal.aborted) throw abortReason(signal);
        this.throwIfClosed();
        throw new EngineError('ENGINE_TIMEOUT', `whisper-server took longer than ${this.timeoutMs} ms`);
      }
      // The connection broke: usually the server died (its exit is reported a moment after the broken pipe).
      await Promise.race([server.whenExited(), new Promise((r) => setTimeout(r, EXIT_GRACE_MS))]);
      const status = server.status ?? `broke the connection (${describeRequestError(err)})`;
      await server.kill();
      throw new EngineError('ENGINE_FAILED', `whisper-server ${status}: ${logTail(server.logSince(0))}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private async serverOf(slot: Slot, signal: AbortSignal): Promise<WhisperServerProcess> {
    if (slot.server?.running) return slot.server;
    slot.server = null;
    if (this.fatal) throw this.fatal;
    try {
      const server = await WhisperServerProcess.start(
        {
          binaryPath: this.settings.binaryPath,
          modelPath: this.settings.modelPath,
          threads: this.threadsPerServer,
          extraArgs: this.settings.extraArgs,
        },
        AbortSignal.any([signal, this.closing.signal]),
      );
      slot.server = server;
      return server;
    } catch (err) {
      if (signal.aborted) throw abortReason(signal);
      this.throwIfClosed();
      // The same binary, model and arguments would fail the same way for every later chunk of the job.
      if (err instanceof WhisperServerStartError && err.permanent) this.fatal = err;
      throw err;
    }
  }

  private acquire(signal: AbortSignal): Promise<Slot> {
    const slot = this.free.pop();
    if (slot) return Promise.resolve(slot);
    return new Promise<Slot>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (s) => {
          signal.removeEventListener('abort', onAbort);
          resolve(s);
        },
        reject: (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      const onAbort = (): void => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private release(slot: Slot): void {
    const next = this.waiters.shift();
    if (next) next.resolve(slot);
    else this.free.push(slot);
  }

  /** Clear messages for the two misconfigurations operators hit first; checked once per job. */
  private checkFiles(): Promise<void> {
    this.filesChecked ??= this.findFiles();
    return this.filesChecked;
  }

  private async findFiles(): Promise<void> {
    const { binaryPath, modelPath } = this.settings;
    try {
      await access(binaryPath, fsConstants.X_OK);
    } catch {
      throw new EngineError(
        'ENGINE_FAILED',
        `whisper-server not found or not executable at ${binaryPath} (build it with scripts/build-whisper-cpp.sh)`,
      );
    }
    const model = await stat(modelPath).catch(() => null);
    if (!model?.isFile()) {
      throw new EngineError('ENGINE_FAILED', `whisper.cpp model file not found: ${modelPath}`);
    }
  }

  private throwIfClosed(): void {
    if (this.closing.signal.aborted) throw this.closedError();
  }

  private closedError(): EngineError {
    return new EngineError('ENGINE_FAILED', 'whisper.cpp recogniser is closed');
  }
}

/**
 * A node:http error carries its reason in `code` (ECONNRESET, EPIPE), a fetch error in `cause`. Duck-typed: undici's
 * errors may come from another realm (jest's sandbox, say), where instanceof fails.
 */
function describeRequestError(err: unknown): string {
  const field = (value: unknown, name: string): unknown =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
  const cause = field(err, 'cause');
  const code = field(cause, 'code') ?? field(err, 'code');
  const message = field(cause, 'message') ?? field(err, 'message');
  const text = typeof message === 'string' ? message : 'unknown network error';
  return typeof code === 'string' ? `${code}: ${text}` : text;
}
