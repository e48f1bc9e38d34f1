import { isRecord } from '../../common/is-record';
import { RecognizedWord } from '../engine.types';
import { toWhisperLanguageCode } from './whisper-language.codes';
import {
  isSpecialToken,
  meanProbability,
  mergeTokensIntoWords,
  spreadSegmentOverWords,
  TimedToken,
} from './whisper-token.merger';

export interface ParsedTranscription {
  /** Words in chunk time. */
  words: RecognizedWord[];
  /** ISO 639-1 code, or null when the server named none (or one Whisper does not know). */
  language: string | null;
}

/**
 * Reads a verbose_json transcription in any of the shapes servers send:
 * - OpenAI (and speaches, vLLM): top-level `words: [{word, start, end}]`, `language: "english"`;
 * - whisper.cpp server: no top-level words, `segments[].words` holding BPE tokens (" Ask", "ed") with times;
 * - segments with start/end but no word list: words spread over the segment;
 * - only `text`: words spread over the whole chunk.
 */
export function parseTranscriptionResponse(body: unknown, chunkSeconds: number): ParsedTranscription {
  if (!isRecord(body)) throw new Error('answer is not a JSON object');
  const language = toWhisperLanguageCode(body.language);

  const topWords = Array.isArray(body.words) ? readTimed(body.words as unknown[]) : [];
  if (topWords.length > 0) return { words: asWords(topWords), language };

  if (Array.isArray(body.segments) && body.segments.length > 0) {
    const words: RecognizedWord[] = [];
    for (const segment of body.segments as unknown[]) {
      if (!isRecord(segment)) continue;
      const timed = Array.isArray(segment.words) ? readTimed(segment.words as unknown[]) : [];
      if (timed.length > 0) {
        // Entries that start with a space are BPE tokens of whole words (whisper.cpp, faster-whisper); a list
        // where none does is already one entry per word.
        const tokens = timed.some((t) => /^\s/.test(t.text));
        words.push(...(tokens ? mergeTokensIntoWords(timed) : asWords(timed)));
      } else if (typeof segment.text === 'string' && isNumber(segment.start) && isNumber(segment.end)) {
        words.push(...spreadSegmentOverWords(segment.text, segment.start, segment.end));
      }
    }
    return { words, language };
  }

  if (typeof body.text === 'string') {
    return { words: spreadSegmentOverWords(body.text, 0, chunkSeconds), language };
  }
  throw new Error('answer has neither words, segments nor text');
}

function readTimed(raw: unknown[]): TimedToken[] {
  const out: TimedToken[] = [];
  for (const w of raw) {
    if (!isRecord(w)) continue;
    const text = typeof w.word === 'string' ? w.word : typeof w.text === 'string' ? w.text : null;
    if (text === null || !isNumber(w.start) || !isNumber(w.end)) continue;
    // whisper.cpp server and faster-whisper send `probability`; OpenAI sends none.
    const probability = isNumber(w.probability) ? w.probability : undefined;
    out.push({ text, start: w.start, end: w.end, ...(probability === undefined ? {} : { probability }) });
  }
  return out;
}

function asWords(timed: TimedToken[]): RecognizedWord[] {
  return timed
    .filter((t) => !isSpecialToken(t.text))
    .map((t) => {
      const confidence = meanProbability([t]);
      return {
        word: t.text.trim(),
        start: t.start,
        end: Math.max(t.start, t.end),
        ...(confidence === undefined ? {} : { confidence }),
      };
    })
    .filter((w) => w.word !== '');
}

/** The explanation in an error answer: OpenAI `{error:{message}}`, FastAPI `{detail}`, or the raw text. */
export function errorMessageOf(text: string): string {
  let message = text.trim();
  try {
    const body: unknown = JSON.parse(text);
    if (isRecord(body)) {
      const error = body.error;
      if (isRecord(error) && typeof error.message === 'string') message = error.message;
      else if (typeof error === 'string') message = error;
      else if (typeof body.detail === 'string') message = body.detail;
      else if (body.detail !== undefined) message = JSON.stringify(body.detail);
      else if (typeof body.message === 'string') message = body.message;
    }
  } catch {
    // not JSON: keep the text
  }
  return (message.length > 500 ? `${message.slice(0, 500)}…` : message) || '(empty answer)';
}

function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}
