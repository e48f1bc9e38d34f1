import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { LiveSessionEnd, LiveSessionUsage } from '../billing/live-session-settlement';
import { TranscriptionBilling } from '../billing/transcription-billing.service';
import type { ModelTier } from '../common/model-tier-catalogue';
import { microToEur } from '../common/money';
import type { TranscribeResult } from '../engine/engine.types';
import { countSpeakers, joinWords } from '../engine/pipeline/transcript-assembly';
import { FileStorage } from '../storage/file-storage';
import { WebhookEventsOutbox } from '../webhooks/events/webhook-events-outbox.service';
import type { RedactedAudio } from './audio/audio-redaction.service';
import { TranscriptionEventsService } from './transcription-events.service';
import { TRANSITIONS } from './transcription-state';
import { Transcription } from './transcription.entity';
import { TranscriptionRepository } from './transcription.repository';

/** A realtime session's end as its process saw it: what it received, delivered and recognised. */
export interface LiveSessionResult extends LiveSessionUsage {
  /** The tier it was billed at. */
  model: ModelTier;
  /** The transcript: the final words delivered, with speakers when they were computed. */
  result: Omit<TranscribeResult, 'duration'>;
}

/**
 * The changes of a transcription's state (transcription-state.ts) and what goes with each: the charge or the
 * free transcription given back, the webhook event, and the event-stream frame once it is committed. File jobs
 * end through complete and fail (TranscriptionAttemptRunner); realtime sessions through endSession and
 * settleLostSession, which settle by the one rule of live sessions and then complete or fail the same way. Every
 * change is guarded by the states it may start from, so a repeated or late one changes and charges nothing.
 */
@Injectable()
export class TranscriptionLifecycle {
  constructor(
    private readonly transcriptions: TranscriptionRepository,
    private readonly events: TranscriptionEventsService,
    private readonly billing: TranscriptionBilling,
    private readonly webhookEvents: WebhookEventsOutbox,
    private readonly storage: FileStorage,
  ) {}

  /** queued → processing for attempt `attemptNumber`; null when the record is gone or already terminal. */
  async start(transcriptionId: string, attemptNumber: number): Promise<Transcription | null> {
    const started = await this.transcriptions.start(transcriptionId, attemptNumber);
    if (!started) return null;
    await this.events.publish(transcriptionId, { status: TRANSITIONS.start.to, progress: started.progress });
    return this.transcriptions.findById(transcriptionId);
  }

  /**
   * processing → queued and no longer handed over, so the next dispatch (the worker's own on its way out, or
   * any process's reconciler) gives it to a worker again. Nothing was charged: settle runs only at completion,
   * and the free transcription reserved at creation stays reserved for the attempt that completes.
   */
  async handBack(transcriptionId: string): Promise<void> {
    await this.transcriptions.handBack(transcriptionId);
  }

  /**
   * → completed and charged for `result.duration` (or failed when the balance no longer covers it), with the
   * `transcription.completed` webhook; null when the record is gone or already terminal. With `redactedAudio`, the redacted copy replaces the upload (removed once the swap is
   * committed).
   */
  async complete(
    transcriptionId: string,
    result: TranscribeResult,
    redactedAudio: RedactedAudio | null = null,
  ): Promise<Transcription | null> {
    const replacedKey: { key?: string | null } = {};
    const outcome = await this.transcriptions.transaction(async (tx) => {
      const transcription = await this.transcriptions.lockFor(tx, transcriptionId, 'complete');
      if (!transcription) return null;
      const settlement = await this.billing.settle(tx, transcription, result.duration);
      if (settlement.kind === 'refused') return this.markFailed(tx, transcription, settlement.reason);
      if (redactedAudio) {
        replacedKey.key = transcription.storageKey;
        Object.assign(transcription, redactedAudio);
      }
      await this.markCompleted(tx, transcription, result, settlement.costMicro);
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

  /**
   * The end of a realtime session, whatever ended it: TranscriptionBilling.settleLiveSession decides whether it
   * completes (charged for the audio received, its delivered words kept, `duration` set) or fails unbilled
   * (`failure` as its error message, `duration` set so the unbilled-audio budget counts it). Null when the
   * record is gone (deleted, which settled it) or already terminal.
   */
  async endSession(
    transcriptionId: string,
    end: Exclude<LiveSessionEnd, 'deleted' | 'lost'>,
    session: LiveSessionResult,
    failure: string,
  ): Promise<Transcription | null> {
    return this.settleSession(
      (tx) => this.transcriptions.lockFor(tx, transcriptionId, 'complete'),
      end,
      () => session,
      failure,
    );
  }

  /**
   * A session whose process died (its lease passed), settled from the progress its lease renewals recorded:
   * the audio received, whether text was delivered, the final words delivered. Null when it was settled or
   * renewed meanwhile.
   */
  settleLostSession(transcriptionId: string, failure: string): Promise<Transcription | null> {
    return this.settleSession(
      (tx) => this.transcriptions.lockLostSession(tx, transcriptionId),
      'lost',
      recordedSessionResult,
      failure,
    );
  }

  private async settleSession(
    lock: (tx: EntityManager) => Promise<Transcription | null>,
    end: Exclude<LiveSessionEnd, 'deleted'>,
    resultOf: (transcription: Transcription) => LiveSessionResult,
    failure: string,
  ): Promise<Transcription | null> {
    const settled = await this.transcriptions.transaction(async (tx) => {
      const transcription = await lock(tx);
      if (!transcription) return null;
      const session = resultOf(transcription);
      transcription.model = session.model;
      transcription.liveWords = null;
      const settlement = await this.billing.settleLiveSession(tx, transcription, end, session);
      if (settlement.kind === 'release') {
        transcription.duration = session.receivedSeconds;
        return this.markFailed(tx, transcription, failure);
      }
      await this.markCompleted(
        tx,
        transcription,
        { ...session.result, duration: session.receivedSeconds },
        settlement.costMicro,
      );
      return transcription;
    });
    if (settled)
      await this.events.publish(settled.id, { status: settled.status, progress: settled.progress });
    return settled;
  }

  /** → failed, unbilled, with the `transcription.failed` webhook; null when gone or already terminal. */
  async fail(transcriptionId: string, errorMessage: string): Promise<Transcription | null> {
    const failed = await this.transcriptions.transaction(async (tx) => {
      const transcription = await this.transcriptions.lockFor(tx, transcriptionId, 'fail');
      return transcription ? this.markFailed(tx, transcription, errorMessage) : null;
    });
    if (failed)
      await this.events.publish(transcriptionId, { status: TRANSITIONS.fail.to, progress: failed.progress });
    return failed;
  }

  /** The completed state, the result and its cost, with the `transcription.completed` webhook. */
  private async markCompleted(
    tx: EntityManager,
    transcription: Transcription,
    result: TranscribeResult,
    cost: number,
  ): Promise<void> {
    const completedAt = new Date();
    Object.assign(transcription, {
      status: TRANSITIONS.complete.to,
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
    await this.transcriptions.saveLocked(tx, transcription);
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
  }

  /** Failed jobs are never billed; a reserved free transcription is given back. */
  private async markFailed(
    tx: EntityManager,
    transcription: Transcription,
    errorMessage: string,
  ): Promise<Transcription> {
    if (await this.billing.release(tx, transcription)) transcription.usesFreeTranscription = false;
    const failedAt = new Date();
    Object.assign(transcription, { status: TRANSITIONS.fail.to, errorMessage, failedAt, costMicro: null });
    await this.transcriptions.saveLocked(tx, transcription);
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
}

/** A lost session's result as its lease renewals recorded it (the words delivered have no speakers). */
function recordedSessionResult(transcription: Transcription): LiveSessionResult {
  const words = (transcription.liveWords ?? []).map((word) => ({ ...word, speaker: null }));
  return {
    model: transcription.model,
    receivedSeconds: transcription.liveAudioSeconds ?? 0,
    delivered: transcription.liveDelivered ?? false,
    result: {
      text: joinWords(words),
      words,
      detectedLanguage: transcription.language ?? 'en',
      speakerCount: countSpeakers(words),
    },
  };
}
