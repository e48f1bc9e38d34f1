import type { TimeSpan, TranscriptWord } from '../../engine/engine.types';
import { joinWords } from '../../engine/pipeline/transcript-assembly';
import { applyCustomSpelling } from './custom-spelling';
import { formatNumbers } from './number-formatting';
import { redactPii } from './pii-redaction';
import { filterProfanity } from './profanity-filter';
import type { TranscriptTextOptions } from './text-options';

export interface PassedTranscript {
  text: string;
  words: TranscriptWord[];
  /** Where redacted entities are said (empty without redaction): what the audio redaction silences. */
  redactedSpans: TimeSpan[];
}

/**
 * The text passes over a finished transcript, in this order: custom spelling (the caller's words first, so
 * the later passes see them), number formatting, the profanity filter, then PII redaction last, so it sees
 * the numbers as formatted and nothing after it can bring back what it removed. The text is the words
 * joined again, so text, words and every export agree.
 */
export function applyTextPasses(
  words: readonly TranscriptWord[],
  options: TranscriptTextOptions,
): PassedTranscript {
  let passed = applyCustomSpelling(words, options.customSpelling);
  if (options.formatNumbers) passed = formatNumbers(passed);
  if (options.filterProfanity) passed = filterProfanity(passed);
  let redactedSpans: TimeSpan[] = [];
  if (options.redactPii) {
    const redacted = redactPii(passed, options.redactPii.policies, options.redactPii.substitution);
    passed = redacted.words;
    redactedSpans = redacted.spans;
  }
  return { text: joinWords(passed), words: passed, redactedSpans };
}
