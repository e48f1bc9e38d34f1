import { deflateSync } from 'node:zlib';
import type { TranscriptWord } from '../engine/engine.types';
import { LANGUAGES } from '../languages/languages';
import { segmentParagraphs } from '../transcriptions/export/paragraph-segmenter';
import type { Schema } from '../openapi/contract-types';

/** What the json and verbose_json answers need from a completed transcription. */
export interface OpenAiTranscript {
  text: string;
  /** ISO 639-1 code, the requested or the detected one; null when neither is known. */
  language: string | null;
  /** Seconds. */
  duration: number | null;
  words: readonly TranscriptWord[];
}

export type OpenAiSegment = Schema<'OpenAiSegment'>;

export type OpenAiVerboseTranscription = Schema<'OpenAiVerboseTranscription'>;

/** Segments of about a Whisper window's length rather than the export's long paragraphs. */
const SEGMENT_OPTIONS = { softMaxChars: 200, hardMaxChars: 400 };

const LANGUAGE_NAMES = new Map<string, string>(LANGUAGES.map(({ code, name }) => [code, name.toLowerCase()]));

/**
 * OpenAI's verbose_json. Its language is the lower-case English name (`english`), as OpenAI writes it. The
 * segment fields we have no source for get neutral values: no `tokens` (our recognisers' tokens are not
 * Whisper's), `temperature` 0 (decoding is deterministic), `no_speech_prob` 0; `avg_logprob` is the mean log
 * of the words' confidences where the recogniser gives them (0 otherwise) and `compression_ratio` is
 * computed as Whisper does (text bytes / deflated bytes).
 */
export function formatVerboseJson(
  transcript: OpenAiTranscript,
  include: { words: boolean; segments: boolean },
): OpenAiVerboseTranscription {
  const lastEnd = transcript.words.reduce((end, word) => Math.max(end, word.end), 0);
  const answer: OpenAiVerboseTranscription = {
    task: 'transcribe',
    language: transcript.language
      ? (LANGUAGE_NAMES.get(transcript.language) ?? transcript.language)
      : 'unknown',
    duration: transcript.duration ?? lastEnd,
    text: transcript.text,
  };
  if (include.segments) {
    answer.segments = segmentParagraphs(transcript.words, SEGMENT_OPTIONS).map((segment, id) => ({
      id,
      seek: Math.floor(segment.start * 100),
      start: segment.start,
      end: segment.end,
      text: ` ${segment.text}`,
      tokens: [],
      temperature: 0,
      avg_logprob: averageLogProbability(wordsWithin(transcript.words, segment.start, segment.end)),
      compression_ratio: compressionRatio(segment.text),
      no_speech_prob: 0,
    }));
  }
  if (include.words) {
    answer.words = transcript.words
      .filter((word) => word.word.trim() !== '')
      .map((word) => ({ word: word.word.trim(), start: word.start, end: word.end }));
  }
  return answer;
}

function wordsWithin(words: readonly TranscriptWord[], start: number, end: number): TranscriptWord[] {
  return words.filter((word) => word.start >= start && word.end <= end);
}

function averageLogProbability(words: readonly TranscriptWord[]): number {
  const confidences = words
    .map((word) => word.confidence)
    .filter((confidence): confidence is number => confidence !== undefined && confidence > 0);
  if (confidences.length === 0) return 0;
  return confidences.reduce((sum, confidence) => sum + Math.log(confidence), 0) / confidences.length;
}

export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return 0;
  return bytes.length / deflateSync(bytes).length;
}
