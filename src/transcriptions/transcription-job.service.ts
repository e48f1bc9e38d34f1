import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { TranscriptionBilling } from '../billing/transcription-billing.service';
import { microToEur } from '../common/money';
import { EngineError, type TranscribeResult } from '../engine/engine.types';
import { EngineRunner } from '../engine/runner/engine-runner';
import { MetricsService } from '../metrics/metrics.service';
import { FileStorage } from '../storage/file-storage';
import { WebhookEventsOutbox } from '../webhooks/events/webhook-events-outbox.service';
import { ProgressThrottle } from './progress-throttle';
import { TranscriptionEventsService } from './transcription-events.service';
import { AudioRedactionService, type RedactedAudio } from './audio/audio-redaction.service';
import { applyTextPasses } from './text/transcript-text-passes';
import { textOptionsOf, Transcription } from './transcription.entity';

/**
 * What the queue processor should do with the attempt; `handed-back`: the worker is shutting down and the
 * transcription waits in PostgreSQL again (uncharged) for the next dispatch.
 */
export type JobOutcome = 'done' | 'retry' | 'handed-back';

/** The abort reason of a job stopped because its worker shuts down (not because it was deleted). */
class HandBack extends Error {}

const PROGRESS_PERSIST_INTERVAL_MS = 500;

/**
 * Runs one attempt of a transcription job: processing → engine (in a child process) → completed and
 * charged, or failed and released. All state changes are guarded so a repeated or late completion
 * (a redelivered job, a deleted record) changes nothing and charges nothing.
 */
@Injectable()
export class TranscriptionJobService {
  private readonly logger = new Logger(TranscriptionJobService.name);
  private readonly running = new Map<string, AbortController>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly engine: EngineRunner,
    private readonly storage: FileStorage,
    private readonly events: TranscriptionEventsService,
    private readonly billing: TranscriptionBilling,
    private readonly metrics: MetricsService,
    private readonly webhookEvents: WebhookEventsOutbox,
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
    const transcription = await this.start(transcriptionId, attempt.number);
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
        const recognised = await this.engine.run(
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
            onUsage: (usage) =>
              this.logger.log(
                `Transcription ${transcriptionId} attempt ${attempt.number}: engine peak memory ${Math.round(usage.peakRssBytes / 1048576)} MB, CPU ${usage.cpuSeconds.toFixed(1)} s`,
              ),
          },
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
      const finished = await this.complete(transcriptionId, result, redactedAudio);
      this.metrics.recordJobFinished(transcription.model, finished, elapsedSeconds(), result.duration);
      return 'done';
    } catch (error) {
      if (controller.signal.reason instanceof HandBack) return this.handBack(transcriptionId);
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
      const failed = await this.fail(transcriptionId, engineError.toErrorMessage());
      this.metrics.recordJobFinished(transcription.model, failed, elapsedSeconds());
      return 'done';
    } finally {
      progress.stop();
      this.running.delete(transcriptionId);
    }
  }

  /** queued → processing; null when the record is gone or already terminal (nothing to do). */
  private async start(transcriptionId: string, attemptNumber: number): Promise<Transcription | null> {
    const updated = await this.dataSource
      .getRepository(Transcription)
      .createQueryBuilder()
      .update()
      // progress is kept: a retried attempt must not send clients back to 0.
      .set({ status: 'processing', startedAt: () => 'now()', attempts: attemptNumber })
      .where('id = :id AND status IN (:...open)', { id: transcriptionId, open: ['queued', 'processing'] })
      .returning(['id', 'progress'])
      .execute();
    const row = (updated.raw as Array<{ id: string; progress: number }>)[0];
    if (!row) return null;
    await this.events.publish(transcriptionId, { status: 'processing', progress: row.progress });
    return this.dataSource.getRepository(Transcription).findOne({ where: { id: transcriptionId } });
  }

  /**
   * processing → queued and no longer handed over, so the next dispatch (this worker's own on its way out, or
   * any process's reconciler) gives it to a worker again. Nothing was charged: settle runs only at completion,
   * and the free transcription reserved at creation stays reserved for the attempt that completes.
   */
  private async handBack(transcriptionId: string): Promise<JobOutcome> {
    await this.dataSource
      .getRepository(Transcription)
      .createQueryBuilder()
      .update()
      .set({ status: 'queued', dispatchedAt: null, startedAt: null })
      .where('id = :id AND status = :status', { id: transcriptionId, status: 'processing' })
      .execute();
    this.logger.log(`Transcription ${transcriptionId} handed back: the worker is shutting down`);
    return 'handed-back';
  }

  /** Clients see every new percentage at once; the stored value lags by PROGRESS_PERSIST_INTERVAL_MS at most. */
  private progressReporter(transcriptionId: string, startFrom: number): ProgressThrottle {
    return new ProgressThrottle(
      startFrom,
      PROGRESS_PERSIST_INTERVAL_MS,
      (progress) => void this.events.publish(transcriptionId, { status: 'processing', progress }),
      (progress) => void this.raiseProgress(transcriptionId, progress).catch(() => undefined),
    );
  }

  /** Stores a progress value unless a larger one is already stored (writes may land out of order). */
  private async raiseProgress(transcriptionId: string, progress: number): Promise<void> {
    await this.dataSource
      .getRepository(Transcription)
      .createQueryBuilder()
      .update()
      .set({ progress })
      .where('id = :id AND status = :status AND progress < :progress', {
        id: transcriptionId,
        status: 'processing',
        progress,
      })
      .execute();
  }

  /**
   * processing → completed and charged for `result.duration` (or failed when the balance no longer covers it),
   * with the `transcription.completed` webhook; null when the record is gone or already terminal. Also the end
   * of a realtime session. With `redactedAudio`, the redacted copy replaces the upload (removed once the swap
   * is committed).
   */
  async complete(
    transcriptionId: string,
    result: TranscribeResult,
    redactedAudio: RedactedAudio | null = null,
  ): Promise<Transcription | null> {
    const replacedKey: { key?: string | null } = {};
    const outcome = await this.dataSource.transaction(async (tx) => {
      const transcription = await this.lockOpen(tx, transcriptionId);
      if (!transcription) return null;
      const settlement = await this.billing.settle(tx, transcription, result.duration);
      if (settlement.kind === 'refused') return this.markFailed(tx, transcription, settlement.reason);
      const cost = settlement.costMicro;
      const completedAt = new Date();
      Object.assign(transcription, {
        status: 'completed',
        progress: 100,
        duration: result.duration,
        detectedLanguage: result.detectedLanguage ?? transcription.language,
        resultText: result.text,
        resultJson: { words: result.words },
        wordCount: result.words.length,
        speakerCount: result.speakerCount,
        costMicro: cost,
        errorMessage: null,
        completedAt,
      });
      if (redactedAudio) {
        replacedKey.key = transcription.storageKey;
        Object.assign(transcription, redactedAudio);
      }
      await tx.getRepository(Transcription).save(transcription);
      await this.webhookEvents.record(tx, {
        type: 'transcription.completed',
        workspaceId: transcription.workspaceId,
        data: {
          id: transcription.id,
          model: transcription.model,
          status: 'completed',
          duration: result.duration,
          wordCount: result.words.length,
          speakerCount: result.speakerCount,
          language: transcription.detectedLanguage ?? undefined,
          cost: microToEur(cost),
          completedAt: completedAt.toISOString(),
          metadata: transcription.metadata,
        },
      });
      return transcription;
    });
    if (redactedAudio) {
      // The unredacted upload goes once the redacted copy is the job's audio; a job that did not complete
      // (deleted meanwhile, refused by billing) keeps its upload and loses the copy.
      const obsolete = outcome?.status === 'completed' ? replacedKey.key : redactedAudio.storageKey;
      if (obsolete) await this.storage.delete(obsolete).catch(() => undefined);
    }
    if (outcome)
      await this.events.publish(transcriptionId, { status: outcome.status, progress: outcome.progress });
    return outcome;
  }

  /** processing → failed, unbilled, with the `transcription.failed` webhook. */
  async fail(transcriptionId: string, errorMessage: string): Promise<Transcription | null> {
    const failed = await this.dataSource.transaction(async (tx) => {
      const transcription = await this.lockOpen(tx, transcriptionId);
      return transcription ? this.markFailed(tx, transcription, errorMessage) : null;
    });
    if (failed) await this.events.publish(transcriptionId, { status: 'failed', progress: failed.progress });
    return failed;
  }

  /** Failed jobs are never billed; a reserved free transcription is given back. */
  private async markFailed(
    tx: EntityManager,
    transcription: Transcription,
    errorMessage: string,
  ): Promise<Transcription> {
    if (await this.billing.release(tx, transcription)) transcription.usesFreeTranscription = false;
    const failedAt = new Date();
    Object.assign(transcription, { status: 'failed', errorMessage, failedAt, costMicro: null });
    await tx.getRepository(Transcription).save(transcription);
    await this.webhookEvents.record(tx, {
      type: 'transcription.failed',
      workspaceId: transcription.workspaceId,
      data: {
        id: transcription.id,
        model: transcription.model,
        status: 'failed',
        errorMessage,
        failedAt: failedAt.toISOString(),
        metadata: transcription.metadata,
      },
    });
    return transcription;
  }

  private async lockOpen(tx: EntityManager, transcriptionId: string): Promise<Transcription | null> {
    const transcription = await tx.getRepository(Transcription).findOne({
      where: { id: transcriptionId },
      lock: { mode: 'pessimistic_write' },
    });
    return transcription && (transcription.status === 'queued' || transcription.status === 'processing')
      ? transcription
      : null;
  }
}
