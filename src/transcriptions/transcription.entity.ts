import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { User } from '../account/user.entity';
import { Workspace } from '../account/workspace.entity';
import { bigintNumber } from '../common/database/bigint-number.transformer';
import type { ModelTier } from '../common/model-tier-catalogue';
import type { RecognizedWord, SpeakerHints, TranscriptWord } from '../engine/engine.types';
import type { TranscriptTextOptions } from './text/text-options';
import type { JobCallback } from '../webhooks/job-callback';

export type { JobCallback } from '../webhooks/job-callback';

export const TRANSCRIPTION_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type TranscriptionStatus = (typeof TRANSCRIPTION_STATUSES)[number];
export { MODEL_TIERS } from '../common/model-tier-catalogue';

/** What a job asked for no text option (rows older than the column store `{}`). */
export const NO_TEXT_OPTIONS: TranscriptTextOptions = {
  customSpelling: [],
  formatNumbers: false,
  filterProfanity: false,
  redactPii: null,
};

/** The text passes a job asked for, whatever its row's age. */
export function textOptionsOf(transcription: Pick<Transcription, 'textOptions'>): TranscriptTextOptions {
  return { ...NO_TEXT_OPTIONS, ...transcription.textOptions };
}

/** The request of a compatible API, kept on its job (Transcription.compatRequest). */
export interface CompatRequest {
  api: 'assemblyai';
  /** The `audio_url` as the client gave it (an upload_url of this service, or its own URL); gone with the audio. */
  audioUrl?: string;
  /** The vendor's answer options as asked (punctuate, format_text, speaker_labels, …). */
  options: Record<string, unknown>;
}

export interface TranscriptionResultJson {
  words: TranscriptWord[];
}

@Entity('transcriptions')
@Index('idx_transcriptions_workspace_created', ['workspaceId', 'createdOn', 'id'])
@Index('idx_transcriptions_status', ['status'])
// Trigram indexes for substring search; created by migration SQL the entity model cannot express.
@Index('idx_transcriptions_file_name_trgm', { synchronize: false })
@Index('idx_transcriptions_result_text_trgm', { synchronize: false })
// GIN index of the transcript's full-text search document (search_vector); migration SQL.
@Index('idx_transcriptions_search_vector', { synchronize: false })
// Partial index of open jobs per workspace for fair-share dispatch (TranscriptionDispatcher); migration SQL.
@Index('idx_transcriptions_open_by_workspace', { synchronize: false })
@Check('chk_transcriptions_status', "status IN ('queued', 'processing', 'completed', 'failed')")
@Check('chk_transcriptions_model', "model IN ('standard', 'premium', 'premium_jade')")
@Check('chk_transcriptions_progress', 'progress BETWEEN 0 AND 100')
export class Transcription {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'user_id' })
  user?: User | null;

  @Column({ type: 'varchar', length: 16 })
  model: ModelTier;

  @Column({ type: 'varchar', length: 16, default: 'queued' })
  status: TranscriptionStatus;

  @Column({ type: 'smallint', default: 0 })
  progress: number;

  @Column({ name: 'original_file_name', type: 'varchar', length: 255 })
  originalFileName: string;

  @Column({ name: 'file_size', type: 'bigint', transformer: bigintNumber })
  fileSize: number;

  @Column({ name: 'mime_type', type: 'varchar', length: 100, nullable: true })
  mimeType: string | null;

  /** Key of the upload in the storage adapter; null once the file is removed. */
  @Column({ name: 'storage_key', type: 'varchar', length: 255, nullable: true })
  storageKey: string | null;

  @Column({ type: 'double precision', nullable: true })
  duration: number | null;

  @Column({ type: 'varchar', length: 8, nullable: true })
  language: string | null;

  @Column({ name: 'detected_language', type: 'varchar', length: 8, nullable: true })
  detectedLanguage: string | null;

  /** Saved and inline vocabulary, resolved at creation so later edits of a vocabulary do not change a job. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  vocabulary: string[];

  /** The caller's free-text initial prompt (OpenAI-compatible route only); null when none. */
  @Column({ type: 'text', nullable: true })
  prompt: string | null;

  @Column({ name: 'speaker_hints', type: 'jsonb', default: () => "'{}'" })
  speakerHints: SpeakerHints;

  /** The caller's `metadata` (string values only; upload-options.ts checks it); echoed in webhooks. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata: Record<string, string>;

  /**
   * The text passes the job applies to its transcript before it is stored (custom spelling, number formatting,
   * profanity filter, PII redaction); the recogniser's own words are never stored when any of them is on.
   */
  @Column({ name: 'text_options', type: 'jsonb', default: () => "'{}'" })
  textOptions: Partial<TranscriptTextOptions>;

  /**
   * Names the workspace gave the transcript's speakers, by raw engine speaker id (`SPEAKER_00` → `Alice`);
   * every export labels a named speaker with its name instead of "Speaker N". `{}` when none.
   */
  @Column({ name: 'speaker_names', type: 'jsonb', default: () => "'{}'" })
  speakerNames: Record<string, string>;

  /**
   * Multichannel: the channels of the upload's first audio stream, each recognised on its own (a word's
   * speaker is its channel) and billed per channel-minute. Null: the channels were mixed to mono and diarized.
   */
  @Column({ type: 'smallint', nullable: true })
  channels: number | null;

  @Column({ name: 'result_text', type: 'text', nullable: true })
  resultText: string | null;

  /**
   * resultText as a full-text search document, in the text-search configuration of the job's language
   * ('simple' when it is not known); null without a transcript. A trigger keeps it (migration
   * TranscriptSearchVector): the service never reads or writes it, it only matches the list's `search`.
   */
  @Column({
    name: 'search_vector',
    type: 'tsvector',
    nullable: true,
    select: false,
    insert: false,
    update: false,
  })
  searchVector?: string | null;

  @Column({ name: 'result_json', type: 'jsonb', nullable: true })
  resultJson: TranscriptionResultJson | null;

  @Column({ name: 'word_count', type: 'integer', nullable: true })
  wordCount: number | null;

  @Column({ name: 'speaker_count', type: 'integer', nullable: true })
  speakerCount: number | null;

  @Column({ name: 'cost_micro', type: 'bigint', nullable: true, transformer: bigintNumber })
  costMicro: number | null;

  /**
   * The quote at creation: probed duration × the tier's price then, 0 for a free transcription, null when
   * the upload states no duration. Never recomputed, so a price change does not move it.
   */
  @Column({ name: 'estimated_cost_micro', type: 'bigint', nullable: true, transformer: bigintNumber })
  estimatedCostMicro: number | null;

  /** A free transcription was reserved for this job at creation (released again if it fails). */
  @Column({ name: 'uses_free_transcription', type: 'boolean', default: false })
  usesFreeTranscription: boolean;

  @Column({ name: 'error_message', type: 'text', nullable: true })
  errorMessage: string | null;

  /**
   * The X-Request-Id of the upload (the caller's or a generated one): the job's and its webhook deliveries'
   * log lines carry it, so one id finds the upload's whole story. Null for rows older than the column.
   */
  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId: string | null;

  /**
   * The W3C `traceparent` of the upload, when the service traces: the job continues its trace whichever
   * process hands it over and runs it. Null while tracing is off (and for older rows).
   */
  @Column({ type: 'varchar', length: 55, nullable: true })
  traceparent: string | null;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /**
   * When the job was handed to the worker queue. Open jobs without it wait in PostgreSQL until their workspace
   * has fewer than MAX_ACTIVE_JOBS_PER_WORKSPACE handed-over open jobs (fair share; TranscriptionDispatcher).
   */
  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt: Date | null;

  /**
   * Set on a realtime session's transcription (WebSocket /v1/realtime): the instance serving it renews it while
   * the session is open. Such a job never goes to the worker queue; one still open after this time lost its
   * instance and is finished by the realtime reconciler. Null for file jobs.
   */
  @Column({ name: 'live_until', type: 'timestamptz', nullable: true })
  liveUntil: Date | null;

  /**
   * A realtime session's progress as its serving process last recorded it (with each lease renewal, and each
   * time as much audio arrived as one renewal interval lasts): the audio received, in seconds of its 16 kHz
   * sample count; whether recognised text reached the client; the final words delivered (cleared when the
   * session ends). What the reconciler and a deletion settle from when the process cannot (issue 31).
   */
  @Column({ name: 'live_audio_seconds', type: 'double precision', nullable: true })
  liveAudioSeconds: number | null;

  @Column({ name: 'live_delivered', type: 'boolean', nullable: true })
  liveDelivered: boolean | null;

  @Column({ name: 'live_words', type: 'jsonb', nullable: true })
  liveWords: RecognizedWord[] | null;

  /**
   * What a paid realtime session holds against the workspace's balance (micro-EUR), raised a window at a time
   * as audio arrives: the billing gate counts it like an open file job's estimate, and its charge never exceeds
   * it. Null for file jobs and sessions on a free transcription.
   */
  @Column({ name: 'live_reserved_micro', type: 'bigint', nullable: true, transformer: bigintNumber })
  liveReservedMicro: number | null;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Column({ name: 'failed_at', type: 'timestamptz', nullable: true })
  failedAt: Date | null;

  /** When the retention purge removed the audio (storageKey is then null); null while it is kept. */
  @Column({ name: 'audio_deleted_at', type: 'timestamptz', nullable: true })
  audioDeletedAt: Date | null;

  /**
   * How a compatible API (AssemblyAI's `/v2/transcript`) asked for the job: its answer options and the audio URL
   * as given, so that reading the job back through that API answers as it was asked. Null for native jobs.
   */
  @Column({ name: 'compat_request', type: 'jsonb', nullable: true })
  compatRequest: CompatRequest | null;

  /** The per-job callback its request asked for (JobCallback); null for none. */
  @Column({ type: 'jsonb', nullable: true })
  callback: JobCallback | null;

  /** When the retention purge removed resultText/resultJson; exports then answer 410 gone. */
  @Column({ name: 'transcript_deleted_at', type: 'timestamptz', nullable: true })
  transcriptDeletedAt: Date | null;
}
