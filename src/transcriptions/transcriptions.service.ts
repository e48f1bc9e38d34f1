import { missingPermission } from '../auth/authentication.guard';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditLog } from '../audit/audit-log.service';
import { TranscriptionBilling } from '../billing/transcription-billing.service';
import type { Principal } from '../common/principal/principal';
import { ProblemException } from '../common/problem/problem.exception';
import { FileStorage } from '../storage/file-storage';
import { EXPORT_FORMATS, isExportFormat, type RenderedExport } from './export/export.types';
import { parseExportOptions } from './export/export-options';
import { renderExport } from './export/render-export';
import type { ListTranscriptionsQueryDto } from './list-transcriptions.dto';
import { findOccurrences, searchTokens, type TranscriptOccurrence } from './transcript-search';
import { TranscriptionEventsService } from './transcription-events.service';
import { TranscriptionDispatcher } from './transcription-dispatcher.service';
import { keepListPosition } from './transcription-list-cursor';
import { isOpen } from './transcription-state';
import { Transcription } from './transcription.entity';
import { TranscriptionRepository } from './transcription.repository';
import { checkSpeakerNames } from './speaker-names';

/** How long a deletion waits for the process serving a realtime session to stop it and record its progress. */
const LIVE_STOP_DEADLINE_MS = 5_000;
const LIVE_STOP_POLL_MS = 25;

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
    private readonly transcriptions: TranscriptionRepository,
    private readonly queue: TranscriptionDispatcher,
    private readonly events: TranscriptionEventsService,
    private readonly storage: FileStorage,
    private readonly billing: TranscriptionBilling,
    private readonly audit: AuditLog,
  ) {}

  async get(workspaceId: string, id: string): Promise<Transcription> {
    const transcription = await this.transcriptions.findInWorkspace(workspaceId, id);
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
    await this.transcriptions.writeSpeakerNames(workspaceId, id, transcription.speakerNames);
    return transcription;
  }

  /** Status and progress only: polling and event streams must not load transcripts. */
  async getState(workspaceId: string, id: string): Promise<Pick<Transcription, 'status' | 'progress'>> {
    const state = await this.transcriptions.findState(workspaceId, id);
    if (!state) throw ProblemException.notFound('The transcription');
    return state;
  }

  /** Newest first, ties broken by id; the cursor rule lives in transcription-list-cursor.ts. */
  async list(workspaceId: string, query: ListTranscriptionsQueryDto): Promise<TranscriptionPage> {
    const rows = await this.transcriptions.page(workspaceId, query, query.limit + 1);
    const hasMore = rows.length > query.limit;
    const items = rows.slice(0, query.limit);
    return { items, hasMore, cursor: hasMore ? items[items.length - 1].id : null };
  }

  /**
   * Hard delete from any state: the record, the stored file, a waiting job; a running job is told to stop.
   * A file job not yet completed is not billed and gives a reserved free transcription back. An open realtime
   * session is settled first, by the rule every end of a session goes through (settleLiveSession): its process
   * is told to stop and record what it received and delivered (stopLiveSession), then, in the transaction that
   * removes the record, a session that delivered text is charged for its audio (the ledger entry stays, and so
   * does its free transcription) and one that delivered nothing is not. The record's removal and its audit event
   * (`transcription.deleted`: what it was, never its text) commit together.
   */
  async delete(principal: Principal, id: string): Promise<void> {
    const workspaceId = principal.workspaceId;
    const stored = await this.get(workspaceId, id);
    assertMayDelete(principal, stored);
    if (isOpen(stored.status) && stored.liveUntil !== null) await this.stopLiveSession(id);
    // The stored file goes first: a store that is down fails the delete (503 service-unavailable) and keeps
    // the record, so the client can retry, instead of a 204 that leaves the audio behind. A record whose
    // file is already gone deletes normally (removing a missing object succeeds).
    if (stored.storageKey) await this.storage.delete(stored.storageKey);
    const removed = await this.transcriptions.transaction(async (tx) => {
      const transcription = await this.transcriptions.lockInWorkspace(tx, workspaceId, id);
      if (!transcription) throw ProblemException.notFound('The transcription');
      const settlement =
        isOpen(transcription.status) && transcription.liveUntil !== null
          ? await this.billing.settleLiveSession(tx, transcription, 'deleted', {
              receivedSeconds: transcription.liveAudioSeconds ?? 0,
              delivered: transcription.liveDelivered ?? false,
            })
          : null;
      if (settlement?.kind !== 'charge') await this.billing.release(tx, transcription);
      await this.transcriptions.remove(tx, id);
      await keepListPosition(tx, transcription);
      await this.audit.record(tx, {
        principal,
        action: 'transcription.deleted',
        target: { type: 'transcription', id },
        before: {
          status: transcription.status,
          model: transcription.model,
          originalFileName: transcription.originalFileName,
          duration: transcription.duration,
          createdOn: transcription.createdOn,
        },
      });
      return transcription;
    });
    // A session that stored its audio between the first read and the removal.
    if (removed.storageKey && removed.storageKey !== stored.storageKey) {
      await this.storage.delete(removed.storageKey).catch(() => undefined);
    }
    if (isOpen(removed.status)) {
      await this.queue.withdraw(workspaceId, id).catch(() => undefined);
      await this.events.publishCancel(id);
    }
  }

  /**
   * Asks whichever process serves the realtime session to stop it and record what it received and delivered
   * (it then gives its lease up), and waits for that, at most LIVE_STOP_DEADLINE_MS. A process that does not
   * answer (gone, or unreachable) leaves the progress its last lease renewal recorded: the audio since then
   * (at most one renewal interval) goes unbilled.
   */
  private async stopLiveSession(id: string): Promise<void> {
    await this.events.publishCancel(id);
    const deadline = Date.now() + LIVE_STOP_DEADLINE_MS;
    while (!(await this.transcriptions.liveSessionReleased(id)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, LIVE_STOP_POLL_MS));
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

/**
 * A member deletes their own work (a transcription their sign-in or one of their keys created); deleting anyone
 * else's needs `transcriptions:delete-any` (admin, owner, a key with `admin`).
 */
function assertMayDelete(principal: Principal, transcription: Pick<Transcription, 'userId'>): void {
  if (principal.permissions.has('transcriptions:delete-any')) return;
  if (principal.userId !== null && transcription.userId === principal.userId) return;
  throw missingPermission(principal, 'transcriptions:delete-any');
}
