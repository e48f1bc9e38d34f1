import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import type { OpenPaidJob, UnbilledAudio, WorkspaceJobHistory } from '../billing/workspace-job-history';
import { MODEL_TIERS_BY_QUEUE_PRIORITY, type ModelTier } from '../common/model-tier-catalogue';
import type { RecognizedWord } from '../engine/engine.types';
import type { ListTranscriptionsQueryDto } from './list-transcriptions.dto';
import { runPrepared, type PreparedStatement } from '../common/database/prepared-statement';
import { pageAfterCursor } from './transcription-list-cursor';
import {
  OPEN_STATUSES,
  RUNNING_STATUS,
  statusIn,
  TRANSITIONS,
  type TranscriptionTransition,
} from './transcription-state';
import { Transcription } from './transcription.entity';

/** A job handed to the worker queue now, or one the reconciler hands again; `place`: see TranscriptionDispatcher. */
export interface HandedOverRow {
  id: string;
  workspaceId: string;
  model: ModelTier;
  createdOn: Date;
  requestId: string | null;
  /** The upload's trace context (null while tracing is off). */
  traceparent: string | null;
  place: number;
}

/** What the end of a realtime session writes before it completes. */
export type SessionResultFields = Pick<
  Transcription,
  'storageKey' | 'fileSize' | 'model' | 'language' | 'vocabulary' | 'prompt' | 'metadata'
>;

/** A realtime session's progress, recorded with its lease (Transcription.liveAudioSeconds and the columns after). */
export interface LiveSessionProgress {
  audioSeconds: number;
  delivered: boolean;
  /** The tier it is billed at (it may change before any audio). */
  model: ModelTier;
  /** The final words delivered since the last record (appended to those recorded before). */
  newWords: RecognizedWord[];
}

const T = 't';

/** The status route's read: one row of the caller's workspace, or none. */
export const STATE_IN_WORKSPACE: PreparedStatement = {
  name: 'transcription_state_in_workspace',
  text: 'SELECT status, progress FROM transcriptions WHERE workspace_id = $1 AND id = $2',
};

/** Open and handed to the worker queue (a Bull job exists, or should). */
const HANDED_OVER = `${statusIn(`${T}.status`, OPEN_STATUSES)} AND ${T}.dispatched_at IS NOT NULL`;
/** Open and waiting in PostgreSQL for its workspace's turn (fair share); live sessions never wait. */
const WAITING = `${statusIn(`${T}.status`, OPEN_STATUSES)} AND ${T}.dispatched_at IS NULL AND ${T}.live_until IS NULL`;
/** A realtime session (processing with a lease) whose instance still renews it. */
const LIVE_SESSION = `${T}.status = '${RUNNING_STATUS}' AND ${T}.live_until > now()`;
/** A realtime session whose lease passed: its instance died. */
const LOST_SESSION = `${T}.status = '${RUNNING_STATUS}' AND ${T}.live_until < now()`;

/**
 * Transcriptions and their jobs: every query on the `transcriptions` table that the services, the worker and
 * the dispatcher make. One style: TypeORM's query builder for every read and guarded update (entities come
 * back through the column transformers, parameters are named), `save` only to insert a new entity or write
 * back one loaded under lock. The state guards come from transcription-state.ts. Methods that take an
 * EntityManager run in the caller's transaction.
 */
@Injectable()
export class TranscriptionRepository implements WorkspaceJobHistory {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Entities are told apart by their id: a partial select that loads entities must include `t.id`. */
  private select(manager: EntityManager = this.dataSource.manager): SelectQueryBuilder<Transcription> {
    return manager.createQueryBuilder(Transcription, T);
  }

  private update(manager: EntityManager = this.dataSource.manager) {
    return manager.createQueryBuilder().update(Transcription);
  }

  // Reads and writes of the API, always scoped by workspace.

  /** For the worker, whose job names only the transcription (its workspace scoped it at upload). */
  findById(id: string): Promise<Transcription | null> {
    return this.select().where(`${T}.id = :id`, { id }).getOne();
  }

  findInWorkspace(workspaceId: string, id: string): Promise<Transcription | null> {
    return this.select()
      .where(`${T}.workspace_id = :workspaceId AND ${T}.id = :id`, { workspaceId, id })
      .getOne();
  }

  /**
   * Status and progress only: polling and event streams must not load transcripts. Polled by clients, so a
   * prepared statement (src/common/database/prepared-statement.ts).
   */
  async findState(
    workspaceId: string,
    id: string,
  ): Promise<Pick<Transcription, 'status' | 'progress'> | null> {
    const [state] = await runPrepared<Pick<Transcription, 'status' | 'progress'>>(
      this.dataSource,
      STATE_IN_WORKSPACE,
      [workspaceId, id],
    );
    return state ?? null;
  }

  /** The audio a player may stream: the stored key and type, and whether retention removed it. */
  findAudio(
    workspaceId: string,
    id: string,
  ): Promise<Pick<Transcription, 'id' | 'storageKey' | 'mimeType' | 'audioDeletedAt'> | null> {
    return this.select()
      .select([`${T}.id`, `${T}.storageKey`, `${T}.mimeType`, `${T}.audioDeletedAt`])
      .where(`${T}.workspace_id = :workspaceId AND ${T}.id = :id`, { workspaceId, id })
      .getOne();
  }

  lockInWorkspace(tx: EntityManager, workspaceId: string, id: string): Promise<Transcription | null> {
    return this.select(tx)
      .where(`${T}.workspace_id = :workspaceId AND ${T}.id = :id`, { workspaceId, id })
      .setLock('pessimistic_write')
      .getOne();
  }

  async remove(tx: EntityManager, id: string): Promise<void> {
    await tx.createQueryBuilder().delete().from(Transcription).where('id = :id', { id }).execute();
  }

  async writeSpeakerNames(
    workspaceId: string,
    id: string,
    speakerNames: Transcription['speakerNames'],
  ): Promise<void> {
    await this.update()
      .set({ speakerNames })
      .where('workspace_id = :workspaceId AND id = :id', { workspaceId, id })
      .execute();
  }

  /**
   * Up to `take` rows of the workspace's list, newest first, after the cursor; the cursor rule lives in
   * transcription-list-cursor.ts.
   */
  async page(
    workspaceId: string,
    filters: Pick<ListTranscriptionsQueryDto, 'status' | 'model' | 'search' | 'cursor'>,
    take: number,
  ): Promise<Transcription[]> {
    const builder = this.select().where(`${T}.workspace_id = :workspaceId`, { workspaceId }).take(take);
    if (filters.status) builder.andWhere(`${T}.status = :status`, { status: filters.status });
    if (filters.model) builder.andWhere(`${T}.model = :model`, { model: filters.model });
    if (filters.search) {
      // Substrings of the file name and the transcript, as before, and the transcript's words in any form its
      // language's stemmer gives them (search_vector: migration TranscriptSearchVector). Each has a GIN index.
      const pattern = `%${filters.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      builder.andWhere(
        new Brackets((where) =>
          where
            .where(`${T}.original_file_name ILIKE :pattern`, { pattern })
            .orWhere(`${T}.result_text ILIKE :pattern`, { pattern })
            .orWhere(`${T}.search_vector @@ transcript_search_query(:search)`, { search: filters.search }),
        ),
      );
    }
    await pageAfterCursor(this.dataSource.manager, builder, T, workspaceId, filters.cursor);
    return builder.getMany();
  }

  /** Inserts a new transcription and returns it with its defaults (id, creation time). */
  insert(tx: EntityManager, values: Partial<Transcription>): Promise<Transcription> {
    const repository = tx.getRepository(Transcription);
    return repository.save(repository.create(values));
  }

  // The job's changes of state, each guarded by the states its transition may start from.

  /**
   * Locks the record for `transition`; null when it is gone or its state does not allow the change (a late
   * or repeated completion, a record deleted meanwhile).
   */
  lockFor(tx: EntityManager, id: string, transition: TranscriptionTransition): Promise<Transcription | null> {
    return this.select(tx)
      .where(`${T}.id = :id`, { id })
      .andWhere(statusIn(`${T}.status`, TRANSITIONS[transition].from))
      .setLock('pessimistic_write')
      .getOne();
  }

  /** Writes back a record loaded by lockFor (its new state and result). */
  async saveLocked(tx: EntityManager, transcription: Transcription): Promise<void> {
    await tx.getRepository(Transcription).save(transcription);
  }

  /**
   * The `start` transition: processing, attempt `attemptNumber`; the stored progress is kept (a retried
   * attempt must not send clients back to 0). Null when the record is gone or already terminal.
   */
  async start(id: string, attemptNumber: number): Promise<{ progress: number } | null> {
    const updated = await this.update()
      .set({ status: TRANSITIONS.start.to, startedAt: () => 'now()', attempts: attemptNumber })
      .where('id = :id', { id })
      .andWhere(statusIn('status', TRANSITIONS.start.from))
      .returning(['progress'])
      .execute();
    const row = (updated.raw as Array<{ progress: number }>)[0];
    return row ? { progress: row.progress } : null;
  }

  /** The `handBack` transition: waiting again, no longer handed over, so the next dispatch takes it. */
  async handBack(id: string): Promise<void> {
    await this.update()
      .set({ status: TRANSITIONS.handBack.to, dispatchedAt: null, startedAt: null })
      .where('id = :id', { id })
      .andWhere(statusIn('status', TRANSITIONS.handBack.from))
      .execute();
  }

  /** Stores a progress value of a running job unless a larger one is stored (writes may land out of order). */
  async raiseProgress(id: string, progress: number): Promise<void> {
    await this.update()
      .set({ progress })
      .where('id = :id AND status = :running AND progress < :progress', {
        id,
        running: RUNNING_STATUS,
        progress,
      })
      .execute();
  }

  // Fair-share dispatch (TranscriptionDispatcher).

  /** One dispatcher per workspace at a time (any process): its count and its hand-over cannot interleave. */
  async lockWorkspaceDispatch(tx: EntityManager, workspaceId: string): Promise<void> {
    // A lock on a name, not on rows: the one statement here the query builder has no form for.
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('transcription-dispatch:' || $1, 0))`, [
      workspaceId,
    ]);
  }

  async countHandedOver(tx: EntityManager, workspaceId: string): Promise<number> {
    const row = await this.select(tx)
      .select('CAST(count(*) AS int)', 'active')
      .where(`${T}.workspace_id = :workspaceId`, { workspaceId })
      .andWhere(HANDED_OVER)
      .getRawOne<{ active: number }>();
    return row?.active ?? 0;
  }

  /**
   * Marks up to `limit` of the workspace's waiting jobs handed over, highest tier first, then oldest, and
   * returns them in that order; `place` counts from `placeFrom`.
   */
  async handOverWaiting(
    tx: EntityManager,
    workspaceId: string,
    limit: number,
    placeFrom: number,
  ): Promise<HandedOverRow[]> {
    const waiting = this.select(tx)
      .select(`${T}.id`)
      .where(`${T}.workspace_id = :workspaceId`)
      .andWhere(WAITING)
      .orderBy(`array_position(CAST(:tiers AS varchar[]), ${T}.model)`)
      .addOrderBy(`${T}.created_on`)
      .addOrderBy(`${T}.id`)
      .limit(limit)
      .setLock('pessimistic_write');
    const updated = await this.update(tx)
      .set({ dispatchedAt: () => 'now()' })
      .where(`id IN (${waiting.getQuery()})`)
      .setParameters({ workspaceId, tiers: MODEL_TIERS_BY_QUEUE_PRIORITY })
      .returning(['id', 'model', 'createdOn', 'requestId', 'traceparent'])
      .execute();
    const rows = updated.raw as Array<{
      id: string;
      model: ModelTier;
      created_on: Date;
      request_id: string | null;
      traceparent: string | null;
    }>;
    return sortByHandOverOrder(rows).map((row, index) => ({
      id: row.id,
      workspaceId,
      model: row.model,
      createdOn: row.created_on,
      requestId: row.request_id,
      traceparent: row.traceparent,
      place: placeFrom + index,
    }));
  }

  /** Open handed-over jobs, oldest first (at most `limit`), with their place among their workspace's. */
  async handedOver(limit: number): Promise<HandedOverRow[]> {
    const rows = await this.select()
      .select(`${T}.id`, 'id')
      .addSelect(`${T}.workspace_id`, 'workspace_id')
      .addSelect(`${T}.model`, 'model')
      .addSelect(`${T}.created_on`, 'created_on')
      .addSelect(`${T}.request_id`, 'request_id')
      .addSelect(`${T}.traceparent`, 'traceparent')
      .addSelect(
        `CAST(row_number() OVER (PARTITION BY ${T}.workspace_id ORDER BY ${T}.dispatched_at, ${T}.id) - 1 AS int)`,
        'place',
      )
      .where(HANDED_OVER)
      .orderBy(`${T}.created_on`)
      .limit(limit)
      .getRawMany<{
        id: string;
        workspace_id: string;
        model: ModelTier;
        created_on: Date;
        request_id: string | null;
        traceparent: string | null;
        place: number;
      }>();
    return rows.map((row) => ({
      id: row.id,
      workspaceId: row.workspace_id,
      model: row.model,
      createdOn: row.created_on,
      requestId: row.request_id,
      traceparent: row.traceparent,
      place: row.place,
    }));
  }

  async workspacesWithWaitingJobs(): Promise<string[]> {
    const rows = await this.select()
      .select(`${T}.workspace_id`, 'workspace_id')
      .distinct(true)
      .where(WAITING)
      .getRawMany<{ workspace_id: string }>();
    return rows.map((row) => row.workspace_id);
  }

  // What billing needs to know of a workspace's jobs (WorkspaceJobHistory).

  /** The workspace's open jobs that are not on a free transcription, with a live session's reservation. */
  openPaidJobs(tx: EntityManager, workspaceId: string): Promise<OpenPaidJob[]> {
    return this.select(tx)
      .select([`${T}.id`, `${T}.model`, `${T}.duration`, `${T}.channels`, `${T}.liveReservedMicro`])
      .where(`${T}.workspace_id = :workspaceId`, { workspaceId })
      .andWhere(statusIn(`${T}.status`, OPEN_STATUSES))
      .andWhere(`${T}.uses_free_transcription = false`)
      .getMany();
  }

  /** The audio of the workspace's jobs failed since `since`, and when the oldest of them failed. */
  async failedAudioSince(tx: EntityManager, workspaceId: string, since: Date): Promise<UnbilledAudio> {
    const row = await this.select(tx)
      .select(`COALESCE(SUM(${T}.duration), 0)`, 'seconds')
      .addSelect(`MIN(${T}.failed_at)`, 'oldest')
      .where(`${T}.workspace_id = :workspaceId`, { workspaceId })
      .andWhere(`${T}.status = :failed AND ${T}.failed_at > :since`, {
        failed: TRANSITIONS.fail.to,
        since,
      })
      .getRawOne<{ seconds: string; oldest: Date | null }>();
    return { seconds: Number(row?.seconds ?? 0), oldest: row?.oldest ? new Date(row.oldest) : null };
  }

  // Realtime sessions: transcriptions that are running while the session is open.

  /** One session opening per workspace at a time (any process): its count and its insert cannot interleave. */
  async lockWorkspaceSessions(tx: EntityManager, workspaceId: string): Promise<void> {
    // A lock on a name, not on rows: the one statement here the query builder has no form for.
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('realtime-sessions:' || $1, 0))`, [
      workspaceId,
    ]);
  }

  async countLiveSessions(tx: EntityManager, workspaceId: string): Promise<number> {
    const row = await this.select(tx)
      .select('CAST(count(*) AS int)', 'open')
      .where(`${T}.workspace_id = :workspaceId`, { workspaceId })
      .andWhere(LIVE_SESSION)
      .getRawOne<{ open: number }>();
    return row?.open ?? 0;
  }

  /**
   * Records a running session's progress and moves its lease to `leaseMs` from now (0: given up now, for its
   * deletion); false when its transcription is gone or no longer running.
   */
  async recordSessionProgress(id: string, leaseMs: number, progress: LiveSessionProgress): Promise<boolean> {
    const updated = await this.update()
      .set({
        liveUntil: () => `now() + CAST(:lease AS interval)`,
        liveAudioSeconds: progress.audioSeconds,
        liveDelivered: progress.delivered,
        model: progress.model,
        liveWords: () => `COALESCE(live_words, '[]'::jsonb) || CAST(:words AS jsonb)`,
      })
      .where('id = :id AND status = :running AND live_until IS NOT NULL', { id, running: RUNNING_STATUS })
      .setParameters({ lease: `${leaseMs} milliseconds`, words: JSON.stringify(progress.newWords) })
      .execute();
    return (updated.affected ?? 0) > 0;
  }

  /** A running session locked for a change of its reservation; null when it is gone or no longer running. */
  lockLiveSession(tx: EntityManager, id: string): Promise<Transcription | null> {
    return this.select(tx)
      .where(`${T}.id = :id AND ${T}.status = :running AND ${T}.live_until IS NOT NULL`, {
        id,
        running: RUNNING_STATUS,
      })
      .setLock('pessimistic_write')
      .getOne();
  }

  async setLiveReservation(tx: EntityManager, id: string, reservedMicro: number): Promise<void> {
    await this.update(tx).set({ liveReservedMicro: reservedMicro }).where('id = :id', { id }).execute();
  }

  /**
   * Whether no process serves the session any more: it is gone, no longer running, or its lease has ended (given
   * up for a deletion, or its process died).
   */
  async liveSessionReleased(id: string): Promise<boolean> {
    const row = await this.select()
      .select(`${T}.id`, 'id')
      .where(`${T}.id = :id AND ${T}.status = :running AND ${T}.live_until > now()`, {
        id,
        running: RUNNING_STATUS,
      })
      .getRawOne<{ id: string }>();
    return !row;
  }

  /** A session whose lease passed, locked for its settlement; null when it was settled or renewed meanwhile. */
  lockLostSession(tx: EntityManager, id: string): Promise<Transcription | null> {
    return this.select(tx)
      .where(`${T}.id = :id`, { id })
      .andWhere(LOST_SESSION)
      .setLock('pessimistic_write')
      .getOne();
  }

  /** Writes a running session's final settings and audio; false when it is gone or no longer running. */
  async writeSessionResult(id: string, fields: SessionResultFields): Promise<boolean> {
    const updated = await this.update()
      .set(fields)
      .where('id = :id AND status = :running', { id, running: RUNNING_STATUS })
      .execute();
    return (updated.affected ?? 0) > 0;
  }

  /** Sessions whose lease passed (their instance died), oldest lease first. */
  async lostSessions(limit: number): Promise<string[]> {
    const rows = await this.select()
      .select(`${T}.id`, 'id')
      .where(LOST_SESSION)
      .orderBy(`${T}.live_until`)
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((row) => row.id);
  }
}

/** RETURNING has no order: the hand-over order again (tier priority, then age). */
function sortByHandOverOrder<R extends { id: string; model: ModelTier; created_on: Date }>(rows: R[]): R[] {
  const tierRank = (model: ModelTier): number => MODEL_TIERS_BY_QUEUE_PRIORITY.indexOf(model);
  return [...rows].sort(
    (a, b) =>
      tierRank(a.model) - tierRank(b.model) ||
      a.created_on.getTime() - b.created_on.getTime() ||
      a.id.localeCompare(b.id),
  );
}
