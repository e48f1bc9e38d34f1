import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { Principal } from '../common/principal/principal';
import { type LiveSessionEnd, paysForAudio } from '../billing/live-session-settlement';
import { TranscriptionBilling } from '../billing/transcription-billing.service';
import type { ModelTier } from '../common/model-tier-catalogue';
import { ProblemException } from '../common/problem/problem.exception';
import { currentRequestId } from '../common/logging/request-id';
import { RealtimeConfig } from './realtime.config';
import { EngineTiers } from '../engine/tiers/engine-tiers';
import type { EngineChoice } from '../engine/registry/engine-descriptor';
import type { RecognizedWord, SpeakerTurn } from '../engine/engine.types';
import { assignSpeakers, countSpeakers, joinWords } from '../engine/pipeline/transcript-assembly';
import { wavHeader } from '../engine/whisper-family/wav.encoder';
import { FileStorage } from '../storage/file-storage';
import { TierLanguagePolicy } from '../transcriptions/tier-language.policy';
import { TranscriptionEventsService } from '../transcriptions/transcription-events.service';
import { TranscriptionLifecycle } from '../transcriptions/transcription-lifecycle.service';
import { RUNNING_STATUS } from '../transcriptions/transcription-state';
import type { Transcription } from '../transcriptions/transcription.entity';
import {
  type LiveSessionProgress,
  TranscriptionRepository,
} from '../transcriptions/transcription.repository';
import { combineVocabulary } from '../transcriptions/upload/upload-options';
import { VocabulariesService } from '../vocabularies/vocabularies.service';
import { LIVE_SAMPLE_RATE } from './recognition/live-transcriber';
import { RealtimeRequestError, RealtimeSessionEnd } from './realtime-errors';
import type { SessionConfig } from './realtime-session-config';

const RECONCILE_INTERVAL_MS = 30_000;

/** A session as the service sees it: told when its transcription is deleted. */
export interface LiveSessionHandle {
  transcriptionDeleted(): void;
}

/** What a session may spend: a free transcription, or its reservation against the balance. */
export type LiveGrant = Pick<Transcription, 'usesFreeTranscription' | 'liveReservedMicro'>;

export interface OpenedSession {
  transcription: Transcription;
  grant: LiveGrant;
}

/** What a session hands over at its end. */
export interface SessionOutcome {
  config: SessionConfig;
  vocabulary: string[];
  words: RecognizedWord[];
  /** Who spoke when in the session's audio (null: not computed, the words get no speaker). */
  speakerTurns: SpeakerTurn[] | null;
  /** Samples received (16 kHz): the billed duration. */
  samples: number;
  /** Whether recognised text (a partial or a final) reached the client. */
  delivered: boolean;
  /** The received audio as raw 16 kHz PCM16 (a temporary file, removed by the caller). */
  pcmPath: string;
}

/**
 * Realtime sessions as transcriptions: opened `processing` (after the per-workspace limit and the billing gate,
 * with a paid session's first reservation), settled at their end, whatever ended it, by the one rule of live
 * sessions (TranscriptionLifecycle.endSession → TranscriptionBilling.settleLiveSession): completed with the
 * transcript, the received audio and the charge for it, or failed unbilled when nothing was delivered. Each
 * lease renewal records the session's progress, so the reconciler settles a session whose instance died (its
 * lease passed) from it, and a deletion settles from what the session recorded when told to stop.
 */
@Injectable()
export class RealtimeSessionsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RealtimeSessionsService.name);
  private readonly live = new Map<string, LiveSessionHandle>();
  private reconcileTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly transcriptions: TranscriptionRepository,
    private readonly billing: TranscriptionBilling,
    private readonly lifecycle: TranscriptionLifecycle,
    private readonly storage: FileStorage,
    private readonly events: TranscriptionEventsService,
    private readonly vocabularies: VocabulariesService,
    private readonly languagePolicy: TierLanguagePolicy,
    private readonly tiers: EngineTiers,
    private readonly config: RealtimeConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.events
      .onCancel((transcriptionId) => this.live.get(transcriptionId)?.transcriptionDeleted())
      .catch((error: Error) => this.logger.warn(`No deletion notices for live sessions: ${error.message}`));
    this.reconcileTimer = setInterval(() => {
      this.reconcile().catch((error: Error) =>
        this.logger.warn(`Realtime reconcile failed: ${error.message}`),
      );
    }, RECONCILE_INTERVAL_MS);
    this.reconcileTimer.unref();
  }

  onModuleDestroy(): void {
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
  }

  /** How long a session's claim on its transcription lasts without renewal. */
  get leaseMs(): number {
    return this.config.REALTIME_SESSION_LEASE_SECONDS * 1000;
  }

  /** Sessions this process serves now. */
  get openCount(): number {
    return this.live.size;
  }

  /** Refuses a tier whose recogniser cannot decode incrementally, naming the tier. */
  assertStreams(tier: ModelTier, param: string): void {
    const { recognizer } = this.tiers.get(tier);
    if (this.tiers.streamsLive(tier)) return;
    const streaming = (['standard', 'premium', 'premium_jade'] as const).filter((candidate) =>
      this.tiers.streamsLive(candidate),
    );
    throw new RealtimeRequestError(
      'model_not_supported',
      `The ${tier} tier runs ${recognizer}, which cannot transcribe live; realtime sessions take ${
        streaming.length > 0 ? `the ${streaming.join(', ')} tier` : 'no tier of this deployment'
      } (PocketSphinx).`,
      param,
    );
  }

  /** The session's language and vocabulary as the file route checks them; the saved vocabulary is resolved. */
  async resolveVocabulary(workspaceId: string, config: SessionConfig): Promise<string[]> {
    try {
      this.languagePolicy.assertServes(config.tier, config.language ?? 'auto');
    } catch (error) {
      if (!(error instanceof ProblemException)) throw error;
      throw RealtimeRequestError.invalidValue('session.audio.input.transcription.language', error.detail);
    }
    const saved = config.vocabularyId ? await this.vocabularies.find(workspaceId, config.vocabularyId) : null;
    if (config.vocabularyId && !saved) {
      throw RealtimeRequestError.invalidValue(
        'session.audio.input.transcription.vocabulary_id',
        'vocabulary_id does not name a vocabulary of this workspace',
      );
    }
    return combineVocabulary(saved?.words ?? [], config.vocabulary);
  }

  /**
   * Creates the session's transcription, `processing`, after the workspace's session limit and the billing gate
   * (a free transcription when one is left, else the minimum balance), all under the workspace's lock.
   */
  async open(principal: Principal, config: SessionConfig, handle: LiveSessionHandle): Promise<OpenedSession> {
    const transcription = await this.transcriptions.transaction(async (tx) => {
      await this.transcriptions.lockWorkspaceSessions(tx, principal.workspaceId);
      const open = await this.transcriptions.countLiveSessions(tx, principal.workspaceId);
      if (open >= this.config.REALTIME_MAX_SESSIONS_PER_WORKSPACE) {
        throw new RealtimeSessionEnd(
          'too_many_sessions',
          `This workspace has ${open} realtime sessions open, the most allowed (${this.config.REALTIME_MAX_SESSIONS_PER_WORKSPACE}); close one first.`,
        );
      }
      const admission = await this.billing
        .reserve(tx, principal.workspaceId, { model: config.tier, durationSeconds: null, channels: null })
        .catch((error: unknown) => {
          if (error instanceof ProblemException) {
            throw new RealtimeSessionEnd('insufficient_balance', error.detail);
          }
          throw error;
        });
      const reserved = admission.usesFree
        ? null
        : await this.billing.reserveLiveWindow(
            tx,
            {
              id: null,
              workspaceId: principal.workspaceId,
              usesFreeTranscription: false,
              liveReservedMicro: 0,
            },
            config.tier,
            this.config.REALTIME_RESERVATION_SECONDS,
          );
      const startedAt = new Date();
      return this.transcriptions.insert(tx, {
        workspaceId: principal.workspaceId,
        userId: principal.userId,
        model: config.tier,
        status: RUNNING_STATUS,
        progress: 0,
        originalFileName: `realtime-${startedAt.toISOString().replace(/[:.]/g, '-')}.wav`,
        fileSize: 0,
        mimeType: 'audio/wav',
        storageKey: null,
        duration: null,
        language: config.language,
        vocabulary: [],
        prompt: config.prompt,
        metadata: config.metadata,
        usesFreeTranscription: admission.usesFree,
        estimatedCostMicro: null,
        requestId: currentRequestId(),
        startedAt,
        liveUntil: new Date(startedAt.getTime() + this.leaseMs),
        liveAudioSeconds: 0,
        liveDelivered: false,
        liveWords: [],
        liveReservedMicro: reserved,
      });
    });
    this.live.set(transcription.id, handle);
    await this.events.publish(transcription.id, { status: RUNNING_STATUS, progress: 0 });
    return {
      transcription,
      grant: {
        usesFreeTranscription: transcription.usesFreeTranscription,
        liveReservedMicro: transcription.liveReservedMicro,
      },
    };
  }

  /** The most audio (seconds) a session may receive at `tier` with what it holds. */
  allowanceSeconds(grant: LiveGrant, tier: ModelTier): number {
    return this.billing.liveAllowanceSeconds(grant, tier);
  }

  /**
   * Raises a paid session's reservation by up to REALTIME_RESERVATION_SECONDS of audio at `tier`, out of the
   * balance nothing else holds; what it holds afterwards, or null when its transcription is gone or no longer
   * running.
   */
  async extendReservation(transcriptionId: string, tier: ModelTier): Promise<LiveGrant | null> {
    return this.transcriptions.transaction(async (tx) => {
      const session = await this.transcriptions.lockLiveSession(tx, transcriptionId);
      if (!session) return null;
      const reserved = await this.billing.reserveLiveWindow(
        tx,
        session,
        tier,
        this.config.REALTIME_RESERVATION_SECONDS,
      );
      if (reserved !== (session.liveReservedMicro ?? 0)) {
        await this.transcriptions.setLiveReservation(tx, transcriptionId, reserved);
      }
      return {
        usesFreeTranscription: session.usesFreeTranscription,
        liveReservedMicro: session.usesFreeTranscription ? null : reserved,
      };
    });
  }

  /**
   * Records the session's progress with a lease renewal (`release`: the lease given up now, the session's
   * process stops serving it); false when its transcription is gone or no longer running.
   */
  recordProgress(transcriptionId: string, progress: LiveSessionProgress, release = false): Promise<boolean> {
    return this.transcriptions.recordSessionProgress(transcriptionId, release ? 0 : this.leaseMs, progress);
  }

  /**
   * The end of a session, whatever ended it (`end`): the rule of live sessions decides whether it pays
   * (TranscriptionLifecycle.endSession). One that pays has its received audio stored as a 16 kHz WAV and its
   * final settings kept, when that can be done (a store that fails leaves the record without audio, still
   * completed and charged), and completes with the delivered words; one that does not fails with `failure`.
   */
  async end(
    transcriptionId: string,
    end: Exclude<LiveSessionEnd, 'deleted' | 'lost'>,
    outcome: SessionOutcome,
    failure: string,
  ): Promise<Transcription | null> {
    this.live.delete(transcriptionId);
    if (paysForAudio(end, outcome.delivered)) {
      await this.storeSession(transcriptionId, outcome).catch((error: unknown) =>
        this.logger.error(
          `Realtime session ${transcriptionId}: audio and settings not stored (${error instanceof Error ? error.message : String(error)}); it is settled without them`,
        ),
      );
    }
    const words = outcome.speakerTurns
      ? assignSpeakers(outcome.words, outcome.speakerTurns)
      : outcome.words.map((word) => ({ ...word, speaker: null }));
    return this.lifecycle.endSession(
      transcriptionId,
      end,
      {
        model: outcome.config.tier,
        receivedSeconds: outcome.samples / LIVE_SAMPLE_RATE,
        delivered: outcome.delivered,
        result: {
          text: joinWords(words),
          words,
          detectedLanguage: outcome.config.language ?? 'en',
          speakerCount: countSpeakers(words),
        },
      },
      failure,
    );
  }

  /** The received audio as a WAV and the session's final settings, on its record. */
  private async storeSession(transcriptionId: string, outcome: SessionOutcome): Promise<void> {
    const storageKey = `realtime/${new Date().toISOString().slice(0, 10)}/${randomUUID()}.wav`;
    const bytes = await this.storage.write(storageKey, wavStream(outcome.pcmPath, outcome.samples));
    const stored = await this.transcriptions
      .writeSessionResult(transcriptionId, {
        storageKey,
        fileSize: bytes,
        model: outcome.config.tier,
        language: outcome.config.language,
        vocabulary: outcome.vocabulary,
        prompt: outcome.config.prompt,
        metadata: outcome.config.metadata,
      })
      .catch(async (error: unknown) => {
        await this.storage.delete(storageKey).catch(() => undefined);
        throw error;
      });
    // Deleted (or settled by the reconciler) meanwhile: the audio has no record to belong to.
    if (!stored) await this.storage.delete(storageKey).catch(() => undefined);
  }

  /** The diarizer a file job of `tier` uses, for the speakers of a session's audio. */
  diarizationSettings(tier: ModelTier): EngineChoice {
    return this.tiers.get(tier).diarizerChoice;
  }

  /** A session whose transcription is being deleted: the deletion settles it. */
  forget(transcriptionId: string): void {
    this.live.delete(transcriptionId);
  }

  /**
   * Settles the sessions whose instance stopped renewing them (killed) from the progress their renewals
   * recorded; returns how many.
   */
  async reconcile(): Promise<number> {
    const lost = await this.transcriptions.lostSessions(100);
    for (const id of lost) {
      await this.lifecycle.settleLostSession(
        id,
        'SESSION_LOST: the realtime session ended without closing (its server stopped) before any text was delivered; nothing was charged',
      );
    }
    return lost.length;
  }
}

/** A WAV header and the raw PCM after it, streamed. */
function wavStream(pcmPath: string, samples: number): Readable {
  const header = wavHeader(samples * 2, LIVE_SAMPLE_RATE);
  return Readable.from(
    (async function* () {
      yield header;
      for await (const chunk of createReadStream(pcmPath)) yield chunk as Buffer;
    })(),
  );
}
