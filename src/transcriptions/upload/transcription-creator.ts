import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Principal } from '../../common/principal/principal';
import { TranscriptionBilling } from '../../billing/transcription-billing.service';
import { currentTraceparent } from '../../common/tracing/trace-context';
import { currentRequestId } from '../../common/logging/request-id';
import { ProblemException } from '../../common/problem/problem.exception';
import { EngineTiers } from '../../engine/tiers/engine-tiers';
import { VocabulariesService } from '../../vocabularies/vocabularies.service';
import { TierLanguagePolicy } from '../tier-language.policy';
import { TranscriptionDispatcher } from '../transcription-dispatcher.service';
import { Transcription } from '../transcription.entity';
import type { StoredUpload } from './multipart-upload';
import { combineVocabulary, type UploadOptions } from './upload-options';

/** An upload whose media was inspected: what the job records of its audio. */
export type InspectedUpload = StoredUpload & {
  mimeType: string;
  durationSeconds: number | null;
  channels: number | null;
};

/** A job's settings resolved before its transaction: nothing is reserved yet. */
export interface JobSettings {
  options: UploadOptions;
  vocabulary: string[];
}

/**
 * Creates a transcription job from an admitted upload, in three calls the intake sequences around its own
 * transaction (which also stores the Idempotency-Key's answer): `settle` refuses what needs no lock (a tier
 * that does not serve the language, an unknown saved vocabulary), `insert` runs the billing gate and the
 * insert under the workspace lock, `dispatch` queues the job once it has committed.
 */
@Injectable()
export class TranscriptionCreator {
  constructor(
    private readonly vocabularies: VocabulariesService,
    private readonly queue: TranscriptionDispatcher,
    private readonly languagePolicy: TierLanguagePolicy,
    private readonly billing: TranscriptionBilling,
    private readonly engineTiers: EngineTiers,
  ) {}

  async settle(principal: Principal, options: UploadOptions): Promise<JobSettings> {
    // Before anything is looked up or reserved: a job the tier cannot serve never exists.
    this.languagePolicy.assertServes(options.model, options.language);
    const saved = options.vocabularyId
      ? await this.vocabularies.find(principal.workspaceId, options.vocabularyId)
      : null;
    if (options.vocabularyId && !saved) {
      throw ProblemException.field(
        'vocabulary_id',
        'vocabulary_id does not name a vocabulary of this workspace',
      );
    }
    return { options, vocabulary: combineVocabulary(saved?.words ?? [], options.inlineVocabulary) };
  }

  /**
   * The billing gate and the reservation of a free transcription happen under a lock of the workspace row,
   * in `tx` with the insert, so concurrent uploads cannot overspend.
   */
  async insert(
    tx: EntityManager,
    principal: Principal,
    upload: InspectedUpload,
    { options, vocabulary }: JobSettings,
  ): Promise<Transcription> {
    const { usesFree, estimateMicro } = await this.billing.reserve(tx, principal.workspaceId, {
      model: options.model,
      durationSeconds: upload.durationSeconds,
      channels: upload.channels,
    });
    return tx.getRepository(Transcription).save(
      tx.getRepository(Transcription).create({
        workspaceId: principal.workspaceId,
        userId: principal.userId,
        model: options.model,
        status: 'queued',
        progress: 0,
        originalFileName: upload.originalFileName,
        fileSize: upload.size,
        mimeType: upload.mimeType,
        // Known from the upload probe; the engine's decoded duration replaces it at completion.
        duration: upload.durationSeconds,
        storageKey: upload.storageKey,
        language: options.language === 'auto' ? null : options.language,
        vocabulary,
        prompt: options.prompt,
        speakerHints: options.speakers,
        metadata: options.metadata,
        textOptions: {
          ...options.text,
          formatNumbers: options.text.formatNumbers ?? this.engineTiers.spellsNumbersOut(options.model),
        },
        channels: upload.channels,
        usesFreeTranscription: usesFree,
        estimatedCostMicro: estimateMicro,
        requestId: currentRequestId(),
        traceparent: currentTraceparent(),
        compatRequest: options.compatRequest ?? null,
        // With the job's row, before the job can end: its end's delivery is made from it (the outbox fan-out).
        callback: options.callback
          ? {
              ...options.callback,
              ...(options.callback.api === 'deepgram' ? { audioSha256: upload.sha256 } : {}),
            }
          : null,
      }),
    );
  }

  /** After the commit: the job is started now or when the workspace has room. */
  async dispatch(transcription: Transcription): Promise<void> {
    await this.queue.dispatchOrDefer(transcription.workspaceId);
  }
}
