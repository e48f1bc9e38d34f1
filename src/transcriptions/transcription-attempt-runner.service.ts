import { Injectable, Logger } from '@nestjs/common';
import { TranscriptionBilling } from '../billing/transcription-billing.service';
import { context } from '@opentelemetry/api';
import { EngineError, type ChunkTiming } from '../engine/engine.types';
import { inSpan, recordFinishedSpan } from '../common/tracing/trace-context';
import { EngineRunner } from '../engine/runner/engine-runner';
import { MetricsService } from '../metrics/metrics.service';
import { FileStorage } from '../storage/file-storage';
import { ProgressThrottle } from './progress-throttle';
import { TranscriptionEventsService } from './transcription-events.service';
import { AudioRedactionService } from './audio/audio-redaction.service';
import { applyTextPasses } from './text/transcript-text-passes';
import { TranscriptionLifecycle } from './transcription-lifecycle.service';
import { RUNNING_STATUS } from './transcription-state';
import { textOptionsOf } from './transcription.entity';
import { TranscriptionRepository } from './transcription.repository';

/**
 * What the worker (TranscriptionWorker) should do with the attempt; `handed-back`: the worker is shutting down and the
 * transcription waits in PostgreSQL again (uncharged) for the next dispatch.
 */
export type JobOutcome = 'done' | 'retry' | 'handed-back';

/** The abort reason of a job stopped because its worker shuts down (not because it was deleted). */
class HandBack extends Error {}

const PROGRESS_PERSIST_INTERVAL_MS = 500;

/**
 * Runs one attempt of a file job in this process: start (TranscriptionLifecycle) → engine (in a child process)
 * → text passes and audio redaction → complete, or fail when the error is permanent or the attempt the last.
 * Reports progress while the engine runs, and stops an attempt when its transcription is deleted or the worker
 * shuts down.
 */
@Injectable()
export class TranscriptionAttemptRunner {
  private readonly logger = new Logger(TranscriptionAttemptRunner.name);
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly lifecycle: TranscriptionLifecycle,
    private readonly transcriptions: TranscriptionRepository,
    private readonly engine: EngineRunner,
    private readonly storage: FileStorage,
    private readonly events: TranscriptionEventsService,
    private readonly billing: TranscriptionBilling,
    private readonly metrics: MetricsService,
    private readonly audioRedaction: AudioRedactionService,
  ) {}

  /** Stops a running job of this process (its transcription was deleted). */
  cancel(transcriptionId: string): void {
    this.running.get(transcriptionId)?.abort(new Error('transcription deleted'));
  }

  /** Stops every running job of this process so another worker takes it over (shutdown deadline passed). */
  handBackAll(): number {
    for (const controller of this.running.values()) controller.abort(new HandBack('worker shutting down'));
    return this.running.size;
  }

  async run(transcriptionId: string, attempt: { number: number; isLast: boolean }): Promise<JobOutcome> {
    const transcription = await this.lifecycle.start(transcriptionId, attempt.number);
    if (!transcription) return 'done';
    const progress = this.progressReporter(transcriptionId, transcription.progress);
    const controller = new AbortController();
    this.running.set(transcriptionId, controller);
    const attemptStarted = Date.now();
    const elapsedSeconds = (): number => (Date.now() - attemptStarted) / 1000;
    try {
      // Remote stores download to a temporary file that is removed when the engine is done with it.
      const sourceKey = transcription.storageKey ?? '';
      const { result, redactedAudio } = await this.storage.withLocalFile(sourceKey, async (audioPath) => {
        const recognised = await this.recognise(transcription.model, (onChunk) =>
          this.engine.run(
            {
              audioPath,
              model: transcription.model,
              language: transcription.language ?? 'auto',
              vocabulary: transcription.vocabulary,
              prompt: transcription.prompt,
              speakers: transcription.speakerHints,
              admittedSeconds: this.billing.decodeLimitSeconds(transcription),
              ...(transcription.channels === null ? {} : { channels: transcription.channels }),
            },
            {
              signal: controller.signal,
              onProgress: (percent) => progress.report(percent),
              onChunk,
              onUsage: (usage) =>
                this.logger.log(
                  `Transcription ${transcriptionId} attempt ${attempt.number}: engine peak memory ${Math.round(usage.peakRssBytes / 1048576)} MB, CPU ${usage.cpuSeconds.toFixed(1)} s`,
                ),
            },
          ),
        );
        // The recogniser's own words live only in memory: what is stored has been through the text passes.
        const textOptions = textOptionsOf(transcription);
        const passed = applyTextPasses(recognised.words, textOptions);
        const redacted =
          textOptions.redactPii?.audio && passed.redactedSpans.length > 0
            ? await this.audioRedaction.store(audioPath, sourceKey, passed.redactedSpans, controller.signal)
            : null;
        return { result: { ...recognised, text: passed.text, words: passed.words }, redactedAudio: redacted };
      });
      const finished = await this.lifecycle.complete(transcriptionId, result, redactedAudio);
      this.metrics.recordJobFinished(transcription.model, finished, elapsedSeconds(), result.duration);
      return 'done';
    } catch (error) {
      if (controller.signal.reason instanceof HandBack) {
        await this.lifecycle.handBack(transcriptionId);
        this.logger.log(`Transcription ${transcriptionId} handed back: the worker is shutting down`);
        return 'handed-back';
      }
      if (controller.signal.aborted) return 'done';
      const engineError =
        error instanceof EngineError ? error : new EngineError('ENGINE_FAILED', (error as Error).message);
      this.logger.warn(
        `Transcription ${transcriptionId} attempt ${attempt.number} failed: ${engineError.toErrorMessage()}`,
      );
      if (engineError.transient && !attempt.isLast) {
        this.metrics.recordJobRetried(transcription.model, engineError.code, elapsedSeconds());
        return 'retry';
      }
      const failed = await this.lifecycle.fail(transcriptionId, engineError.toErrorMessage());
      this.metrics.recordJobFinished(transcription.model, failed, elapsedSeconds());
      return 'done';
    } finally {
      progress.stop();
      this.running.delete(transcriptionId);
    }
  }

  /**
   * The engine's run as a span of the job's trace, with one child span per chunk the engine child recognised
   * (reported by the child with its times, recorded here: the child has no tracing of its own).
   */
  private recognise<T>(
    model: string,
    run: (onChunk: (chunk: ChunkTiming) => void) => Promise<T>,
  ): Promise<T> {
    return inSpan('engine transcribe', { attributes: { 'engine.model': model } }, () => {
      // Chunk messages arrive on the child's IPC channel, outside this context: their parent is taken here.
      const engineContext = context.active();
      return run((chunk) =>
        recordFinishedSpan('engine chunk', engineContext, chunk, {
          'audio.offset_seconds': chunk.offsetSeconds,
          'audio.duration_seconds': chunk.durationSeconds,
          'engine.words': chunk.words,
          ...(chunk.channel === null ? {} : { 'audio.channel': chunk.channel }),
        }),
      );
    });
  }

  /** Clients see every new percentage at once; the stored value lags by PROGRESS_PERSIST_INTERVAL_MS at most. */
  private progressReporter(transcriptionId: string, startFrom: number): ProgressThrottle {
    return new ProgressThrottle(
      startFrom,
      PROGRESS_PERSIST_INTERVAL_MS,
      (progress) => void this.events.publish(transcriptionId, { status: RUNNING_STATUS, progress }),
      (progress) => void this.transcriptions.raiseProgress(transcriptionId, progress).catch(() => undefined),
    );
  }
}
