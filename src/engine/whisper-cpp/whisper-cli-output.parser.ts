import { isRecord } from '../../common/is-record';
import { RecognizedWord } from '../engine.types';
import { toWhisperLanguageCode } from './whisper-language.codes';
import { mergeTokensIntoWords, spreadSegmentOverWords, TimedToken } from './whisper-token.merger';

export interface WhisperCliResult {
  /** Words in chunk time (seconds from the start of the WAV that whisper-cli read). */
  words: RecognizedWord[];
  detectedLanguage: string | null;
}

/**
 * Reads the file written by `whisper-cli --output-json-full`. whisper-cli writes token text as raw bytes
 * (only quotes and backslashes escaped), so a multi-byte character can be split over two tokens and a token
 * may even hold a raw control character. We therefore read the bytes as latin1 (one char per byte), repair
 * control characters inside strings, join tokens into words, and only then decode each word as UTF-8.
 */
export function parseWhisperCliJson(bytes: Buffer): WhisperCliResult {
  let doc: unknown;
  try {
    doc = JSON.parse(escapeControlCharsInStrings(bytes.toString('latin1')));
  } catch (err) {
    throw new Error(`whisper-cli wrote unreadable JSON: ${(err as Error).message}`);
  }
  if (!isRecord(doc) || !Array.isArray(doc.transcription)) {
    throw new Error('whisper-cli JSON has no "transcription" array');
  }
  const utf8 = (s: string): string => Buffer.from(s, 'latin1').toString('utf8');
  const words: RecognizedWord[] = [];
  for (const segment of doc.transcription as unknown[]) {
    if (!isRecord(segment)) continue;
    const tokens = Array.isArray(segment.tokens) ? readTokens(segment.tokens as unknown[]) : [];
    if (tokens.length > 0) {
      words.push(...mergeTokensIntoWords(tokens, utf8));
    } else if (typeof segment.text === 'string') {
      // Written without token timestamps: fall back to the segment's own span.
      const span = readOffsets(segment.offsets);
      if (span) words.push(...spreadSegmentOverWords(utf8(segment.text), span.start, span.end));
    }
  }
  const result = isRecord(doc.result) ? doc.result : {};
  return { words, detectedLanguage: toWhisperLanguageCode(result.language) };
}

function readTokens(raw: unknown[]): TimedToken[] {
  const tokens: TimedToken[] = [];
  for (const t of raw) {
    if (!isRecord(t) || typeof t.text !== 'string') continue;
    const span = readOffsets(t.offsets);
    if (span) tokens.push({ text: t.text, ...span });
  }
  return tokens;
}

/** whisper-cli's "offsets" are milliseconds. */
function readOffsets(offsets: unknown): { start: number; end: number } | null {
  if (!isRecord(offsets) || typeof offsets.from !== 'number' || typeof offsets.to !== 'number') return null;
  return { start: offsets.from / 1000, end: offsets.to / 1000 };
}

/** Escapes raw control characters that appear inside JSON strings (invalid JSON, but whisper-cli emits them). */
export function escapeControlCharsInStrings(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      else if (ch < ' ') {
        out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
        continue;
      }
    } else if (ch === '"') {
      inString = true;
    }
    out += ch;
  }
  return out;
}
