import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { Principal } from '../common/principal/principal';
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
import { TranscriptionRepository } from '../transcriptions/transcription.repository';
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

export interface OpenedSession {
  transcription: Transcription;
  /** The most audio the session may receive (realtime-sessions.service: liveAllowanceSeconds). */
  allowanceSeconds: number;
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
  /** The received audio as raw 16 kHz PCM16 (a temporary file, removed by the caller). */
  pcmPath: string;
}

/**
 * Realtime sessions as transcriptions: opened `processing` (after the per-workspace limit and the billing gate),
 * completed at their end with the transcript, the received audio and the charge for it, through the same
 * completion as a file job (TranscriptionLifecycle.complete). A session whose instance died is failed by the
 * reconciler once its lease (`live_until`) has passed.
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
      });
    });
    this.live.set(transcription.id, handle);
    await this.events.publish(transcription.id, { status: RUNNING_STATUS, progress: 0 });
    return { transcription, allowanceSeconds: await this.billing.liveAllowanceSeconds(transcription) };
  }

  /** What a session may receive after it switched to `tier` (before any audio). */
  tierAllowanceSeconds(transcription: Transcription, tier: ModelTier): Promise<number> {
    return this.billing.liveAllowanceSeconds({ ...transcription, model: tier });
  }

  /** Extends the session's lease; false when its transcription is gone or no longer open. */
  async renew(transcriptionId: string): Promise<boolean> {
    return this.transcriptions.renewSession(transcriptionId, this.leaseMs);
  }

  /**
   * The end of a session: the received audio is stored as a 16 kHz WAV, the session's final settings are kept
   * on the record, and the transcription completes (charged for the audio received) as a file job does.
   */
  async finish(transcriptionId: string, outcome: SessionOutcome): Promise<Transcription | null> {
    this.live.delete(transcriptionId);
    const storageKey = `realtime/${new Date().toISOString().slice(0, 10)}/${randomUUID()}.wav`;
    const bytes = await this.storage.write(storageKey, wavStream(outcome.pcmPath, outcome.samples));
    const stored = await this.transcriptions.writeSessionResult(transcriptionId, {
      storageKey,
      fileSize: bytes,
      model: outcome.config.tier,
      language: outcome.config.language,
      vocabulary: outcome.vocabulary,
      prompt: outcome.config.prompt,
      metadata: outcome.config.metadata,
    });
    if (!stored) {
      // Deleted (or finished by the reconciler) meanwhile: the audio has no record to belong to.
      await this.storage.delete(storageKey).catch(() => undefined);
      return null;
    }
    const words = outcome.speakerTurns
      ? assignSpeakers(outcome.words, outcome.speakerTurns)
      : outcome.words.map((word) => ({ ...word, speaker: null }));
    return this.lifecycle.complete(transcriptionId, {
      text: joinWords(words),
      words,
      detectedLanguage: outcome.config.language ?? 'en',
      duration: outcome.samples / LIVE_SAMPLE_RATE,
      speakerCount: countSpeakers(words),
    });
  }

  /** The diarizer a file job of `tier` uses, for the speakers of a session's audio. */
  diarizationSettings(tier: ModelTier): EngineChoice {
    return this.tiers.get(tier).diarizerChoice;
  }

  /** A session whose transcription was deleted: nothing to store. */
  forget(transcriptionId: string): void {
    this.live.delete(transcriptionId);
  }

  /** A session that ended without a result (its recognition failed): failed and unbilled. */
  async abandon(transcriptionId: string, errorMessage: string): Promise<void> {
    this.live.delete(transcriptionId);
    await this.lifecycle.fail(transcriptionId, errorMessage);
  }

  /** Fails the sessions whose instance stopped renewing them (killed); returns how many. */
  async reconcile(): Promise<number> {
    const lost = await this.transcriptions.lostSessions(100);
    for (const id of lost) {
      await this.lifecycle.fail(
        id,
        'SESSION_LOST: the realtime session ended without closing (its server stopped); nothing was charged',
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
