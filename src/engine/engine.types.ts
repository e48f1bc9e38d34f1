/**
 * The engine contract. Everything in src/engine speaks these types; the transcriptions module only sees
 * TranscribeRequest in and TranscribeResult (or an EngineError) out.
 */

import type { ModelTier } from '../common/model-tier-catalogue';

/** Error codes that end up as the prefix of a failed transcription's `errorMessage` ("CODE: explanation"). */
export type EngineErrorCode =
  | 'NO_SPOKEN_AUDIO'
  | 'AUDIO_TOO_SHORT'
  | 'AUDIO_TOO_LONG'
  | 'DECODE_FAILED'
  | 'ENGINE_FAILED'
  | 'ENGINE_TIMEOUT'
  | 'UNSUPPORTED_LANGUAGE';

/** Permanent errors fail the job at once; transient ones are retried within the job's retry budget. */
export const TRANSIENT_ENGINE_ERRORS: ReadonlySet<EngineErrorCode> = new Set([
  'ENGINE_FAILED',
  'ENGINE_TIMEOUT',
]);

export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    explanation: string,
  ) {
    super(explanation);
    this.name = 'EngineError';
  }

  get transient(): boolean {
    return TRANSIENT_ENGINE_ERRORS.has(this.code);
  }

  /** The form stored in `errorMessage`. */
  toErrorMessage(): string {
    return `${this.code}: ${this.message}`;
  }
}

/** Speaker-count hints from the upload: either an exact count or a min/max range, or nothing. */
export type SpeakerHints = { exact: number } | { min: number; max: number } | Record<string, never>;

/** 16 kHz mono audio as float samples in [-1, 1]. */
export interface Pcm {
  readonly samples: Float32Array;
  readonly sampleRate: 16000;
}

/** A stretch of audio in seconds from the start of the file. */
export interface TimeSpan {
  start: number;
  end: number;
}

/** A recognised word before diarization. */
export interface RecognizedWord extends TimeSpan {
  word: string;
  /**
   * 0..1, only where the recogniser gives one (PocketSphinx lattice posteriors, whisper.cpp token
   * probabilities); absent otherwise, never a made-up constant.
   */
  confidence?: number;
}

/** A word as stored in resultJson.words. */
export interface TranscriptWord extends RecognizedWord {
  speaker: string | null;
}

/** A diarizer's answer: who speaks when. Speaker ids are stable within one file ("SPEAKER_00", ...). */
export interface SpeakerTurn extends TimeSpan {
  speaker: string;
}

export interface TranscribeRequest {
  /** Path of the stored upload, any accepted container; the pipeline decodes it. */
  audioPath: string;
  model: ModelTier;
  /** ISO 639-1 code, or 'auto'. */
  language: string;
  /** Custom words that should reach the recogniser. */
  vocabulary: string[];
  /** The caller's free-text initial prompt (the OpenAI-compatible route's `prompt`); null when none. */
  prompt: string | null;
  speakers: SpeakerHints;
  /**
   * The most audio this job may decode: what it was admitted (and quoted, or given free) for at upload. The
   * pipeline fails it with AUDIO_TOO_LONG, unbilled, as soon as the decoded audio passes it (a header that
   * understates the audio). Absent: only the deployment's maximum applies.
   */
  admittedSeconds?: number;
  /**
   * Multichannel: the number of channels of the first audio stream, each recognised on its own and without
   * diarization (a word's speaker is its channel, CHANNEL_1 …). Absent: the channels are mixed to mono and
   * diarized.
   */
  channels?: number;
}

export interface TranscribeResult {
  text: string;
  words: TranscriptWord[];
  /** ISO 639-1 code; for 'auto' the detected one, else the requested one. */
  detectedLanguage: string | null;
  /** Decoded audio duration in seconds. */
  duration: number;
  speakerCount: number;
}

/** Progress 0..100 of the whole pipeline, reported as the stages advance. */
/**
 * One recognised chunk, reported when done (the worker records it as a span of the job's trace): when its
 * recognition ran (epoch milliseconds, this host's clock) and which stretch of the audio it was. No audio, no
 * words: only their count.
 */
export interface ChunkTiming {
  startedAt: number;
  endedAt: number;
  /** Where the chunk starts in the audio, and its length, in seconds. */
  offsetSeconds: number;
  durationSeconds: number;
  /** The channel's index with `channels`; null for the file's mix. */
  channel: number | null;
  words: number;
}

export type ProgressCallback = (percent: number, stage: PipelineStage) => void;

/** decode covers probing; recognition covers decoding, speech detection and recognition, which now overlap. */
export type PipelineStage = 'decode' | 'recognition' | 'diarization' | 'assembly';

/** Turns speech chunks into words. One implementation per engine (PocketSphinx, whisper.cpp, OpenAI-compatible HTTP). */
export interface Recognizer {
  readonly name: string;
  /** Languages this recogniser covers (ISO 639-1), or 'all'. */
  readonly languages: ReadonlySet<string> | 'all';
  recognize(chunk: RecognitionChunk, options: RecognitionOptions): Promise<RecognitionOutput>;
  /** Releases child processes / native handles. */
  close(): Promise<void>;
}

export interface RecognitionChunk {
  /** 16 kHz mono samples of this chunk only. */
  samples: Float32Array;
  /** Offset of the chunk within the file in seconds; words come back in file time. */
  offset: number;
}

export interface RecognitionOptions {
  language: string;
  vocabulary: string[];
  /** Free-text initial prompt; Whisper-family recognisers read it, PocketSphinx has no such input. */
  prompt?: string | null;
  signal: AbortSignal;
}

export interface RecognitionOutput {
  words: RecognizedWord[];
  /** Language the engine detected for this chunk, where it detects one. */
  detectedLanguage: string | null;
}

/** Finds speech in a file, fed as a stream of sample blocks. */
export interface SpeechDetector {
  open(): SpeechDetection;
}

/** One file's speech detection. */
export interface SpeechDetection {
  /** Feeds the next samples; returns the speech spans (file seconds, in order) that ended so far. */
  accept(samples: Float32Array): TimeSpan[];
  /** The end of the file: returns the spans still open. */
  finish(): TimeSpan[];
}

/**
 * Labels who speaks when. A file is diarized as a stream: the pipeline feeds the audio it recognises, stretch
 * by stretch in time order, and the session keeps bounded statistics (never the samples), so memory does not
 * grow with the file's duration.
 */
export interface Diarizer {
  readonly name: string;
  begin(hints: SpeakerHints): DiarizationSession;
}

/** One file's diarization. */
export interface DiarizationSession {
  /**
   * One stretch of the file: 16 kHz mono `samples` starting at `offset` seconds, and the speech spans (file
   * seconds, sorted, inside the stretch) found in it. Stretches come in time order and never overlap.
   */
  add(samples: Float32Array, offset: number, speech: readonly TimeSpan[]): Promise<void>;
  /** Who speaks when over the whole file; called once, after the last stretch. */
  finish(): Promise<SpeakerTurn[]>;
}
