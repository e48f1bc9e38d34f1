import { RecognizedWord } from '../engine.types';
import { roundConfidence } from '../word-confidence';

/** One decoder token with its time span in seconds (chunk time). */
export interface TimedToken {
  text: string;
  start: number;
  end: number;
  /** The decoder's probability of the token (whisper.cpp `probability`), when the server sends one. */
  probability?: number;
}

/** whisper.cpp's names for special tokens ([_BEG_], [_TT_125], [_SOT_], ...) and OpenAI's (<|endoftext|>). */
const SPECIAL_TOKEN = /^(\[_.*\]|<\|.*\|>)$/s;

export function isSpecialToken(text: string): boolean {
  return SPECIAL_TOKEN.test(text.trim());
}

/**
 * Joins BPE tokens into words: a token that begins with whitespace starts a new word, any other token
 * (a sub-word piece, trailing punctuation) extends the current one. (whisper-server already joins the
 * pieces of a character split over two tokens, so each token's text is valid UTF-8.)
 */
export function mergeTokensIntoWords(tokens: readonly TimedToken[]): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  const pending: TimedToken[] = [];
  const flush = (): void => {
    if (pending.length === 0) return;
    const word = pending
      .map((t) => t.text)
      .join('')
      .trim();
    const start = pending[0].start;
    const end = Math.max(start, ...pending.map((t) => t.end));
    const confidence = meanProbability(pending);
    if (word !== '') words.push({ word, start, end, ...(confidence === undefined ? {} : { confidence }) });
    pending.length = 0;
  };
  for (const token of tokens) {
    if (token.text === '' || isSpecialToken(token.text)) continue;
    if (/^\s/.test(token.text)) flush();
    pending.push(token);
  }
  flush();
  return words;
}

/**
 * A word's confidence from its tokens: the mean of their probabilities (as openai-whisper's word timestamps);
 * none when any token lacks one.
 */
export function meanProbability(tokens: readonly TimedToken[]): number | undefined {
  if (tokens.length === 0 || tokens.some((token) => token.probability === undefined)) return undefined;
  const sum = tokens.reduce((total, token) => total + (token.probability ?? 0), 0);
  return roundConfidence(sum / tokens.length);
}

/**
 * Fallback when an engine gives only segment times: the segment's words share its span in proportion to
 * their length (a rough guess, but keeps every word inside its segment).
 */
export function spreadSegmentOverWords(text: string, start: number, end: number): RecognizedWord[] {
  const parts = text.split(/\s+/).filter((w) => w !== '' && !isSpecialToken(w));
  const total = parts.reduce((n, w) => n + w.length, 0);
  const span = Math.max(0, end - start);
  const words: RecognizedWord[] = [];
  let at = start;
  for (const word of parts) {
    const next = at + (total > 0 ? (span * word.length) / total : 0);
    words.push({ word, start: at, end: next });
    at = next;
  }
  return words;
}

/**
 * Moves words into file time and keeps them inside their chunk: Whisper pads audio to 30 s windows and can
 * place (hallucinated) tokens past the end of a short chunk, which would overlap the next chunk's words.
 */
export function toFileTime(
  words: readonly RecognizedWord[],
  offset: number,
  chunkSeconds: number,
): RecognizedWord[] {
  const limit = Math.max(0, chunkSeconds);
  return words.map((w) => {
    const start = Math.min(Math.max(0, w.start), limit);
    const end = Math.min(Math.max(start, w.end), limit);
    return { ...w, start: start + offset, end: end + offset };
  });
}
