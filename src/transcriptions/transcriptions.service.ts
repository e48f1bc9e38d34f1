import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { Brackets, DataSource, EntityManager, Repository } from 'typeorm';
import type { Principal } from '../auth/principal';
import { TranscriptionBilling } from '../billing/transcription-billing.service';
import { ProblemException } from '../common/problem/problem.exception';
import { EngineTiers } from '../engine/tiers/engine-tiers';
import { FileStorage } from '../storage/file-storage';
import { VocabulariesService } from '../vocabularies/vocabularies.service';
import { EXPORT_FORMATS, isExportFormat, type RenderedExport } from './export/export.types';
import { parseExportOptions } from './export/export-options';
import { renderExport } from './export/render-export';
import type { ListTranscriptionsQueryDto } from './list-transcriptions.dto';
import { findOccurrences, searchTokens, type TranscriptOccurrence } from './transcript-search';
import { TierLanguagePolicy } from './tier-language.policy';
import { TranscriptionEventsService } from './transcription-events.service';
import { keepListPosition, pageAfterCursor } from './transcription-list-cursor';
import { TranscriptionQueue } from './transcription-queue.service';
import { Transcription } from './transcription.entity';
import type { StoredUpload } from './upload/multipart-upload';
import { combineVocabulary, type UploadOptions } from './upload/upload-options';
import { currentRequestId } from '../common/logging/request-id';
import { checkSpeakerNames } from './speaker-names';

export interface TranscriptionPage {
  items: Transcription[];
  cursor: string | null;
  hasMore: boolean;
}

/** Every method takes the workspace first: another workspace's transcription simply does not exist. */
@Injectable()
export class TranscriptionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(Transcription) private readonly transcriptions: Repository<Transcription>,
    private readonly vocabularies: VocabulariesService,
    private readonly queue: TranscriptionQueue,
    private readonly events: TranscriptionEventsService,
    private readonly storage: FileStorage,
    private readonly languagePolicy: TierLanguagePolicy,
    private readonly billing: TranscriptionBilling,
    private readonly engineTiers: EngineTiers,
  ) {}

  /**
   * Creates the job: the billing gate and the reservation of a free transcription happen under a lock of
   * the workspace row, in the same transaction as the insert, so concurrent uploads cannot overspend.
   * `alongside` runs in that transaction after the insert (the upload completes its Idempotency-Key there),
   * so what it writes commits with the job or not at all.
   */
  async create(
    principal: Principal,
    upload: StoredUpload & { mimeType: string; durationSeconds: number | null; channels: number | null },
    options: UploadOptions,
    alongside?: (tx: EntityManager, created: Transcription) => Promise<void>,
  ): Promise<Transcription> {
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
    const vocabulary = combineVocabulary(saved?.words ?? [], options.inlineVocabulary);
    const transcription = await this.dataSource.transaction(async (tx) => {
      const { usesFree, estimateMicro } = await this.billing.reserve(tx, principal.workspaceId, {
        model: options.model,
        durationSeconds: upload.durationSeconds,
        channels: upload.channels,
      });
      const created = await tx.getRepository(Transcription).save(
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
        }),
      );
      await alongside?.(tx, created);
      return created;
    });
    await this.queue.dispatchOrDefer(transcription.workspaceId);
    return transcription;
  }

  async get(workspaceId: string, id: string): Promise<Transcription> {
    const transcription = await this.transcriptions.findOne({ where: { workspaceId, id } });
    if (!transcription) throw ProblemException.notFound('The transcription');
    return transcription;
  }

  /**
   * Replaces the names of the transcript's speakers (`{}` clears them); exports label named speakers with
   * them. Keys must be speaker ids of the transcript's words, so only a completed transcript with speakers
   * takes names.
   */
  async renameSpeakers(
    workspaceId: string,
    id: string,
    names: Readonly<Record<string, unknown>>,
  ): Promise<Transcription> {
    const transcription = await this.get(workspaceId, id);
    const speakers = new Set(
      (transcription.resultJson?.words ?? [])
        .map((word) => word.speaker)
        .filter((speaker): speaker is string => typeof speaker === 'string'),
    );
    transcription.speakerNames = checkSpeakerNames(names, speakers);
    await this.transcriptions.update({ workspaceId, id }, { speakerNames: transcription.speakerNames });
    return transcription;
  }

  /** Status and progress only: polling and event streams must not load transcripts. */
  async getState(workspaceId: string, id: string): Promise<Pick<Transcription, 'status' | 'progress'>> {
    const state = await this.transcriptions.findOne({
      where: { workspaceId, id },
      select: { status: true, progress: true },
    });
    if (!state) throw ProblemException.notFound('The transcription');
    return state;
  }

  /** Newest first, ties broken by id; the cursor rule lives in transcription-list-cursor.ts. */
  async list(workspaceId: string, query: ListTranscriptionsQueryDto): Promise<TranscriptionPage> {
    const builder = this.transcriptions
      .createQueryBuilder('t')
      .where('t.workspace_id = :workspaceId', { workspaceId })
      .take(query.limit + 1);
    if (query.status) builder.andWhere('t.status = :status', { status: query.status });
    if (query.model) builder.andWhere('t.model = :model', { model: query.model });
    if (query.search) {
      // Substrings of the file name and the transcript, as before, and the transcript's words in any form its
      // language's stemmer gives them (search_vector: migration TranscriptSearchVector). Each has a GIN index.
      const pattern = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      builder.andWhere(
        new Brackets((where) =>
          where
            .where('t.original_file_name ILIKE :pattern', { pattern })
            .orWhere('t.result_text ILIKE :pattern', { pattern })
            .orWhere('t.search_vector @@ transcript_search_query(:search)', { search: query.search }),
        ),
      );
    }
    await pageAfterCursor(this.transcriptions.manager, builder, 't', workspaceId, query.cursor);
    const rows = await builder.getMany();
    const hasMore = rows.length > query.limit;
    const items = rows.slice(0, query.limit);
    return { items, hasMore, cursor: hasMore ? items[items.length - 1].id : null };
  }

  /**
   * Hard delete from any state: the record, the stored file, a waiting job; a running job is told to stop.
   * A free transcription reserved by an unfinished job is given back; nothing is billed.
   */
  async delete(workspaceId: string, id: string): Promise<void> {
    // The stored file goes first: a store that is down fails the delete (503 service-unavailable) and keeps
    // the record, so the client can retry, instead of a 204 that leaves the audio behind. A record whose
    // file is already gone deletes normally (removing a missing object succeeds).
    const stored = await this.get(workspaceId, id);
    if (stored.storageKey) await this.storage.delete(stored.storageKey);
    const removed = await this.dataSource.transaction(async (tx) => {
      const transcription = await tx.getRepository(Transcription).findOne({
        where: { workspaceId, id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!transcription) throw ProblemException.notFound('The transcription');
      await this.billing.release(tx, transcription);
      await tx.getRepository(Transcription).delete({ id });
      await keepListPosition(tx, transcription);
      return transcription;
    });
    if (removed.status === 'queued' || removed.status === 'processing') {
      await this.queue.withdraw(workspaceId, id).catch(() => undefined);
      await this.events.publishCancel(id);
    }
  }

  /** `query` is the raw query string; the controls that apply to the format are read from it. */
  async export(
    workspaceId: string,
    id: string,
    format: string | undefined,
    query: Readonly<Record<string, unknown>> = {},
  ): Promise<RenderedExport> {
    const transcription = await this.get(workspaceId, id);
    if (!isExportFormat(format)) {
      throw new ProblemException('invalid-format', `format must be one of ${EXPORT_FORMATS.join(', ')}.`);
    }
    const options = parseExportOptions(format, query);
    assertTranscriptReadable(transcription, 'exports need');
    return renderExport(
      {
        id: transcription.id,
        originalFileName: transcription.originalFileName,
        model: transcription.model,
        createdOn: transcription.createdOn,
        completedAt: transcription.completedAt,
        duration: transcription.duration,
        language: transcription.language,
        detectedLanguage: transcription.detectedLanguage,
        resultText: transcription.resultText,
        speakerCount: transcription.speakerCount,
        wordCount: transcription.wordCount,
        words: transcription.resultJson?.words ?? [],
        speakerNames: transcription.speakerNames,
      },
      format,
      options,
    );
  }

  /** Where the transcript says the words of `q` (case and punctuation aside); see transcript-search.ts. */
  async search(workspaceId: string, id: string, q: string): Promise<TranscriptOccurrence[]> {
    if (searchTokens(q).length === 0) throw ProblemException.field('q', 'q must contain a letter or a digit');
    const transcription = await this.get(workspaceId, id);
    assertTranscriptReadable(transcription, 'search needs');
    return findOccurrences(transcription.resultJson?.words ?? [], q);
  }
}

/** 400 not-ready before completion, 410 gone once retention removed the transcript. */
function assertTranscriptReadable(transcription: Transcription, whoNeedsIt: string): void {
  if (transcription.status !== 'completed') {
    throw new ProblemException(
      'not-ready',
      `The transcription is ${transcription.status}; ${whoNeedsIt} it completed.`,
    );
  }
  if (transcription.transcriptDeletedAt) {
    throw new ProblemException(
      'gone',
      `The transcript was deleted by the workspace's retention on ${transcription.transcriptDeletedAt.toISOString()}.`,
    );
  }
}
