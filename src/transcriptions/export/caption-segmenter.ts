import type { TranscriptWord } from '../../engine/engine.types';
import { layoutCaptionLines } from './caption-lines';
import type { CaptionExportOptions } from './export-options';
import { endsClause, endsSentence, textWidth, toTimedWords, type TimedWord } from './timed-word';

export interface CaptionOptions {
  /** Width of one caption line in grapheme clusters (the common broadcast limit). */
  maxLineWidth: number;
  /** Lines per cue, 1 to 3. */
  maxLines: number;
  /** Longest cue, unless a single word alone lasts longer. */
  maxCueMs: number;
  /** A silence longer than this between two words always starts a new cue. */
  pauseMs: number;
  /** Short cues are stretched to this, as far as the next cue allows. */
  minCueMs: number;
  /**
   * Text put before the first line of a cue whose speaker differs from the previous cue's (e.g.
   * "Speaker 1: "), or null for none. It counts into the line width.
   */
  speakerPrefix: (speaker: string | null) => string | null;
}

export const DEFAULT_CAPTION_OPTIONS: CaptionOptions = {
  maxLineWidth: 42,
  maxLines: 2,
  maxCueMs: 7000,
  pauseMs: 1500,
  minCueMs: 500,
  speakerPrefix: () => null,
};

/** The segmenter settings an export's caption controls choose. */
export function captionLayout(
  options: CaptionExportOptions,
): Pick<CaptionOptions, 'maxLineWidth' | 'maxLines' | 'maxCueMs'> {
  return {
    maxLineWidth: options.maxCharsPerLine,
    maxLines: options.maxLines,
    maxCueMs: Math.round(options.maxCueSeconds * 1000),
  };
}

export interface CaptionCue {
  /** Seconds, whole milliseconds. */
  start: number;
  end: number;
  /** Raw engine speaker id of every word in the cue. */
  speaker: string | null;
  /** The speaker prefix the first line starts with, or null. */
  prefix: string | null;
  /** The cue's words, whitespace-normalised, in order. */
  words: string[];
  /** At most `maxLines` lines, ready to print. */
  lines: string[];
}

/** A cue before timing is settled: times still as the words gave them. */
interface DraftCue {
  words: TimedWord[];
  prefix: string | null;
  lines: string[];
}

// Cue count matters most; among layouts with as many cues, the one with the most even cue widths wins,
// and a cut after a comma is worth about as much as a few characters of imbalance.
const CLAUSE_CUT_BONUS = 400;
// All lines full, separated by spaces: nothing wider can fit.
const widestCue = (options: CaptionOptions): number =>
  options.maxLines * options.maxLineWidth + options.maxLines - 1;

/**
 * Turns transcript words into caption cues. Pure and deterministic. Rules, in order:
 * 1. hard cuts between two words at a speaker change, after a sentence end (. ? ! …), and at a pause
 *    longer than `pauseMs`;
 * 2. within those stretches, the fewest cues that each fit `maxLines` lines of `maxLineWidth` and last at most
 *    `maxCueMs`, chosen by dynamic programming so that cue widths come out even (no orphan words);
 * 3. each cue's lines are balanced (see layoutCaptionLines); a word wider than a line is a cue of its own;
 * 4. timing: start = first word's start, end = last word's end, never overlapping the previous cue, and
 *    stretched to `minCueMs` where the next cue leaves room.
 */
export function segmentCaptions(
  words: readonly TranscriptWord[],
  overrides: Partial<CaptionOptions> = {},
): CaptionCue[] {
  const options: CaptionOptions = { ...DEFAULT_CAPTION_OPTIONS, ...overrides };
  const drafts: DraftCue[] = [];
  let previousSpeaker: string | null | undefined;
  for (const stretch of splitAtHardBoundaries(toTimedWords(words), options.pauseMs)) {
    const speaker = stretch[0].speaker;
    const prefix = speaker === previousSpeaker ? null : options.speakerPrefix(speaker);
    drafts.push(...packStretch(stretch, prefix, options));
    previousSpeaker = speaker;
  }
  return settleTiming(drafts, options.minCueMs);
}

export function isHardBoundary(before: TimedWord, after: TimedWord, pauseMs: number): boolean {
  return (
    before.speaker !== after.speaker || endsSentence(before.text) || after.startMs - before.endMs > pauseMs
  );
}

function splitAtHardBoundaries(words: readonly TimedWord[], pauseMs: number): TimedWord[][] {
  const stretches: TimedWord[][] = [];
  let current: TimedWord[] = [];
  for (const word of words) {
    const last = current.at(-1);
    if (last !== undefined && isHardBoundary(last, word, pauseMs)) {
      stretches.push(current);
      current = [];
    }
    current.push(word);
  }
  if (current.length > 0) {
    stretches.push(current);
  }
  return stretches;
}

interface Plan {
  cues: number;
  penalty: number;
  /** Index where the last cue of this plan starts. */
  from: number;
  lines: string[];
}

function isBetter(candidate: Pick<Plan, 'cues' | 'penalty'>, current: Plan | undefined): boolean {
  if (current === undefined) {
    return true;
  }
  return (
    candidate.cues < current.cues || (candidate.cues === current.cues && candidate.penalty < current.penalty)
  );
}

/** Dynamic programme over cut positions: plans[end] is the best way to caption words[0..end). */
function packStretch(
  words: readonly TimedWord[],
  prefix: string | null,
  options: CaptionOptions,
): DraftCue[] {
  const plans: (Plan | undefined)[] = [{ cues: 0, penalty: 0, from: 0, lines: [] }];
  for (let end = 1; end <= words.length; end += 1) {
    plans[end] = bestPlanEndingAt(words, end, plans, prefix, options);
  }
  return unwindPlans(words, plans, prefix);
}

function bestPlanEndingAt(
  words: readonly TimedWord[],
  end: number,
  plans: readonly (Plan | undefined)[],
  prefix: string | null,
  options: CaptionOptions,
): Plan {
  let best: Plan | undefined;
  let width = -1;
  let latestEnd = 0;
  for (let from = end - 1; from >= 0; from -= 1) {
    width += words[from].width + 1;
    latestEnd = Math.max(latestEnd, words[from].endMs);
    const single = from === end - 1;
    if (!single && width > widestCue(options)) {
      break;
    }
    const before = plans[from];
    if (before === undefined || (!single && latestEnd - words[from].startMs > options.maxCueMs)) {
      continue;
    }
    const lines = layoutCaptionLines(
      words.slice(from, end),
      from === 0 ? prefix : null,
      options.maxLineWidth,
      options.maxLines,
    );
    if (lines === null) {
      continue;
    }
    const candidate = {
      cues: before.cues + 1,
      penalty: before.penalty + cuePenalty(words, from, end, lines, options),
    };
    if (isBetter(candidate, best)) {
      best = { ...candidate, from, lines };
    }
  }
  // A single word always yields a plan, so best is set; the fallback only satisfies the compiler.
  return best ?? { cues: Number.POSITIVE_INFINITY, penalty: 0, from: end - 1, lines: [words[end - 1].text] };
}

function cuePenalty(
  words: readonly TimedWord[],
  from: number,
  end: number,
  lines: readonly string[],
  options: CaptionOptions,
): number {
  const used = lines.reduce((sum, line) => sum + textWidth(line), 0);
  const slack = Math.max(0, options.maxLines * options.maxLineWidth - used);
  const clauseCut = end < words.length && endsClause(words[end - 1].text);
  return slack * slack - (clauseCut ? CLAUSE_CUT_BONUS : 0);
}

function unwindPlans(
  words: readonly TimedWord[],
  plans: readonly (Plan | undefined)[],
  prefix: string | null,
) {
  const cues: DraftCue[] = [];
  let end = words.length;
  while (end > 0) {
    const plan = plans[end];
    if (plan === undefined) {
      throw new Error(`caption plan missing at word ${end}`);
    }
    cues.unshift({
      words: words.slice(plan.from, end),
      prefix: plan.from === 0 ? prefix : null,
      lines: plan.lines,
    });
    end = plan.from;
  }
  return cues;
}

/** Cue times in whole milliseconds so that formatting never rounds two cues into each other. */
function settleTiming(drafts: readonly DraftCue[], minCueMs: number): CaptionCue[] {
  const cues: CaptionCue[] = [];
  let previousEnd = 0;
  drafts.forEach((draft, index) => {
    const startMs = Math.max(draft.words[0].startMs, previousEnd);
    const lastWordEnd = Math.max(...draft.words.map((word) => word.endMs));
    // At least 1 ms even if configured to 0: a cue must end after it starts.
    let endMs = Math.max(lastWordEnd, startMs + Math.max(1, minCueMs));
    const nextStart = drafts[index + 1]?.words[0].startMs;
    if (nextStart !== undefined && nextStart > startMs) {
      endMs = Math.min(endMs, nextStart);
    }
    cues.push({
      start: startMs / 1000,
      end: endMs / 1000,
      speaker: draft.words[0].speaker,
      prefix: draft.prefix,
      words: draft.words.map((word) => word.text),
      lines: draft.lines,
    });
    previousEnd = endMs;
  });
  return cues;
}
