import { ChildProcess, spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  EngineError,
  RecognitionChunk,
  RecognitionOptions,
  RecognitionOutput,
  Recognizer,
} from '../engine.types';
import { abortReason } from '../abort.util';
import { parseWhisperCliJson } from './whisper-cli-output.parser';
import { isWhisperLanguage, toWhisperEngineLanguage } from './whisper-language.codes';
import {
  DEFAULT_MAX_PROMPT_CHARS,
  WHISPER_CPP_DEFAULT_TIMEOUT_MS,
  WhisperCppRecognizerSettings,
} from './whisper-cpp.settings';
import { buildVocabularyPrompt } from './vocabulary-prompt.builder';
import { encodeWav16kMono } from './wav.encoder';
import { toFileTime } from './whisper-token.merger';

const SAMPLE_RATE = 16000;
/** Enough of whisper-cli's log to explain a failure without flooding the job's errorMessage. */
const STDERR_TAIL_BYTES = 4096;
/** What whisper-cli logs when whisper_init fails (its exit code 3 is shared with other start-up errors). */
const MODEL_LOAD_FAILED = 'failed to initialize whisper context';

/**
 * Runs one `whisper-cli` process per chunk. Measured on 2 cores (docs/whisper-models.md): model load is
 * 78/104/333 ms of a 1.5/3.8/13.9 s run for tiny/base/small-sized models, and a resident whisper-server was
 * no faster per 25 s chunk (it serves one request at a time and adds a language-probability pass). A process
 * per chunk needs no supervision and is killed outright on abort.
 */
export class WhisperCppRecognizer implements Recognizer {
  readonly name = 'whisper.cpp';
  readonly languages = 'all' as const;
  private readonly running = new Set<ChildProcess>();
  private closed = false;

  private readonly timeoutMs: number;

  constructor(private readonly settings: WhisperCppRecognizerSettings) {
    this.timeoutMs = settings.timeoutMs ?? WHISPER_CPP_DEFAULT_TIMEOUT_MS;
  }

  private get cliPath(): string {
    return this.settings.binaryPath;
  }

  async recognize(chunk: RecognitionChunk, options: RecognitionOptions): Promise<RecognitionOutput> {
    const { signal } = options;
    if (signal.aborted) throw abortReason(signal);
    if (this.closed) throw new EngineError('ENGINE_FAILED', 'whisper.cpp recogniser is closed');
    const language = options.language === 'auto' ? 'auto' : options.language.toLowerCase();
    if (language !== 'auto' && !isWhisperLanguage(language)) {
      throw new EngineError(
        'UNSUPPORTED_LANGUAGE',
        `whisper.cpp does not know language '${options.language}'`,
      );
    }
    await this.checkFiles();
    // whisper-cli writes no result at all for empty audio.
    if (chunk.samples.length === 0)
      return { words: [], detectedLanguage: language === 'auto' ? null : language };

    const dir = await mkdtemp(path.join(this.settings.tmpDir ?? tmpdir(), 'whisper-cpp-'));
    try {
      const wavPath = path.join(dir, 'chunk.wav');
      const outBase = path.join(dir, 'out');
      await writeFile(wavPath, encodeWav16kMono(chunk.samples));
      const args = [
        '-m',
        this.settings.modelPath,
        '-f',
        wavPath,
        '-l',
        language === 'auto' ? 'auto' : toWhisperEngineLanguage(language),
        '-t',
        String(this.settings.threads),
        // -ojf turns on token timestamps (word timing) and writes tokens with their offsets.
        '-ojf',
        '-of',
        outBase,
        ...(this.settings.extraArgs ?? []),
      ];
      const prompt = buildVocabularyPrompt(
        options.vocabulary,
        this.settings.maxPromptChars ?? DEFAULT_MAX_PROMPT_CHARS,
      );
      if (prompt !== '') args.push('--prompt', prompt);

      const stderr = await this.run(args, signal);

      const json = await readFile(`${outBase}.json`).catch(() => null);
      if (json === null) {
        // whisper-cli exits 0 without output on some argument errors (an unknown language, say).
        throw new EngineError('ENGINE_FAILED', `whisper-cli wrote no result: ${stderrTail(stderr)}`);
      }
      let parsed;
      try {
        parsed = parseWhisperCliJson(json);
      } catch (err) {
        throw new EngineError('ENGINE_FAILED', `whisper-cli output unreadable: ${(err as Error).message}`);
      }
      return {
        words: toFileTime(parsed.words, chunk.offset, chunk.samples.length / SAMPLE_RATE),
        detectedLanguage: parsed.detectedLanguage ?? (language === 'auto' ? null : language),
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const child of this.running) child.kill('SIGKILL');
    this.running.clear();
  }

  /** Clear messages for the two misconfigurations operators hit first. */
  private async checkFiles(): Promise<void> {
    try {
      await access(this.cliPath, fsConstants.X_OK);
    } catch {
      throw new EngineError(
        'ENGINE_FAILED',
        `whisper-cli not found or not executable at ${this.cliPath} (build it with scripts/build-whisper-cpp.sh)`,
      );
    }
    const model = await stat(this.settings.modelPath).catch(() => null);
    if (!model?.isFile()) {
      throw new EngineError('ENGINE_FAILED', `whisper.cpp model file not found: ${this.settings.modelPath}`);
    }
  }

  private run(args: string[], signal: AbortSignal): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      // Preparing the WAV takes a moment: an abort or close() may already have come.
      if (signal.aborted) return reject(abortReason(signal));
      if (this.closed) return reject(new EngineError('ENGINE_FAILED', 'whisper.cpp recogniser is closed'));
      const child = spawn(this.cliPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      this.running.add(child);
      let stderr = '';
      let settled = false;
      const finish = (err?: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.running.delete(child);
        if (err) reject(err);
        else resolve(stderr);
      };
      const onAbort = (): void => {
        child.kill('SIGKILL');
        finish(abortReason(signal));
      };
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        finish(new EngineError('ENGINE_TIMEOUT', `whisper-cli took longer than ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });

      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (data: string) => {
        stderr = (stderr + data).slice(-STDERR_TAIL_BYTES * 4);
      });
      child.on('error', (err) =>
        finish(new EngineError('ENGINE_FAILED', `cannot start whisper-cli: ${err.message}`)),
      );
      child.on('close', (code, sig) => {
        if (code === 0) return finish();
        if (this.closed)
          return finish(new EngineError('ENGINE_FAILED', 'whisper.cpp recogniser closed during the run'));
        const tail = stderrTail(stderr);
        if (stderr.includes(MODEL_LOAD_FAILED)) {
          return finish(
            new EngineError(
              'ENGINE_FAILED',
              `whisper.cpp could not load model ${this.settings.modelPath} (not a ggml Whisper model, or corrupt): ${tail}`,
            ),
          );
        }
        const how = code === null ? `was killed by ${sig}` : `exited with code ${code}`;
        finish(new EngineError('ENGINE_FAILED', `whisper-cli ${how}: ${tail}`));
      });
    });
  }
}

/** The lines that say what went wrong; whisper.cpp logs its usage text after argument errors, so drop that. */
function stderrTail(stderr: string): string {
  const usageAt = stderr.indexOf('\nusage:');
  const text = (usageAt >= 0 ? stderr.slice(0, usageAt) : stderr).trim();
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const tail = lines.slice(-6).join(' | ');
  return (tail.length > STDERR_TAIL_BYTES ? tail.slice(-STDERR_TAIL_BYTES) : tail) || '(no output)';
}
