import type { TranscriptWord } from '../engine/engine.types';
import { paragraphWords, sentenceWords } from '../transcriptions/export/word-groups';
import type { Transcription } from '../transcriptions/transcription.entity';
import type { Schema } from '../openapi/contract-types';
import type { AssemblyAiAnswerOptions } from './assemblyai-transcript-request';

type Transcript = Schema<'AssemblyAiTranscript'>;
type Word = Schema<'AssemblyAiWord'>;
type Utterance = Schema<'AssemblyAiUtterance'>;
type Group = Schema<'AssemblyAiWordGroup'>;

/** What a job not created through this API is read as: AssemblyAI's defaults. */
const DEFAULT_OPTIONS: AssemblyAiAnswerOptions = {
  speech_model: null,
  language_code: 'en_us',
  language_detection: false,
  punctuate: true,
  format_text: true,
  speaker_labels: false,
  speakers_expected: null,
  multichannel: false,
  word_boost: [],
  boost_param: null,
  filter_profanity: false,
  redact_pii: false,
  redact_pii_audio: false,
  redact_pii_policies: null,
  redact_pii_sub: null,
  custom_spelling: null,
};

const STATUS: Record<Transcription['status'], Transcript['status']> = {
  queued: 'queued',
  processing: 'processing',
  completed: 'completed',
  failed: 'error',
};

/** How the job was asked for through this API (AssemblyAI's defaults for a native job). */
export function answerOptionsOf(
  job: Pick<Transcription, 'compatRequest' | 'channels'>,
): AssemblyAiAnswerOptions {
  if (job.compatRequest?.api === 'assemblyai') {
    return { ...DEFAULT_OPTIONS, ...(job.compatRequest.options as Partial<AssemblyAiAnswerOptions>) };
  }
  return { ...DEFAULT_OPTIONS, multichannel: job.channels !== null };
}

/** The URL a job's audio came from, as this API shows it: as given, or the native upload's file name. */
export function audioUrlOf(job: Pick<Transcription, 'compatRequest' | 'originalFileName'>): string {
  return job.compatRequest?.audioUrl ?? `file://${job.originalFileName}`;
}

/** Speaker labels as AssemblyAI writes them: A, B, … in order of first appearance (AA after Z). */
function speakerLetters(words: readonly TranscriptWord[]): Map<string, string> {
  const letters = new Map<string, string>();
  for (const word of words) {
    if (word.speaker === null || letters.has(word.speaker) || /^CHANNEL_/.test(word.speaker)) continue;
    let index = letters.size;
    let label = '';
    do {
      label = String.fromCharCode(65 + (index % 26)) + label;
      index = Math.floor(index / 26) - 1;
    } while (index >= 0);
    letters.set(word.speaker, label);
  }
  return letters;
}

/** Word texts as asked: without punctuation (`punctuate: false`), lower case (`format_text: false`). */
function shownText(text: string, options: AssemblyAiAnswerOptions): string {
  let shown = options.punctuate ? text : text.replace(/[^\p{L}\p{N}'’\s-]/gu, '');
  if (!options.format_text) shown = shown.toLowerCase();
  return shown || text;
}

interface WordContext {
  options: AssemblyAiAnswerOptions;
  letters: Map<string, string>;
}

function toWord(word: TranscriptWord, context: WordContext): Word {
  const channel = /^CHANNEL_(\d+)$/.exec(word.speaker ?? '')?.[1] ?? null;
  const letter = word.speaker === null ? undefined : context.letters.get(word.speaker);
  return {
    text: shownText(word.word, context.options),
    start: Math.round(word.start * 1000),
    end: Math.round(word.end * 1000),
    // AssemblyAI's schema requires a number: 0 when the recogniser gave none (docs/compatibility.md).
    confidence: word.confidence ?? 0,
    speaker:
      context.options.speaker_labels && letter !== undefined ? letter : channel !== null ? channel : null,
    ...(context.options.multichannel ? { channel } : {}),
  };
}

function meanConfidence(words: readonly Word[]): number {
  if (words.length === 0) return 0;
  return Math.round((words.reduce((sum, word) => sum + word.confidence, 0) / words.length) * 10_000) / 10_000;
}

function group(words: readonly TranscriptWord[], context: WordContext): Group {
  const shown = words.map((word) => toWord(word, context));
  return {
    text: shown.map((word) => word.text).join(' '),
    start: shown[0]?.start ?? 0,
    end: Math.max(0, ...shown.map((word) => word.end)),
    confidence: meanConfidence(shown),
    words: shown,
    speaker: shown[0]?.speaker ?? null,
    ...(context.options.multichannel ? { channel: shown[0]?.channel ?? null } : {}),
  };
}

function contextOf(job: Transcription): { words: TranscriptWord[]; context: WordContext } {
  const words = job.resultJson?.words ?? [];
  return { words, context: { options: answerOptionsOf(job), letters: speakerLetters(words) } };
}

/** A job as AssemblyAI's transcript object (docs/compatibility.md lists every field). */
export function toAssemblyAiTranscript(
  job: Transcription,
  webhookStatusCode: number | null = null,
): Transcript {
  const { words, context } = contextOf(job);
  const options = context.options;
  const completed = job.status === 'completed';
  const shown = completed ? words.map((word) => toWord(word, context)) : null;
  const utterances =
    completed && (options.speaker_labels || options.multichannel) ? utterancesOf(words, context) : null;
  return {
    id: job.id,
    status: STATUS[job.status],
    audio_url: audioUrlOf(job),
    text: shown ? shown.map((word) => word.text).join(' ') : null,
    words: shown,
    utterances,
    confidence: shown ? meanConfidence(shown) : null,
    audio_duration: job.duration === null ? null : Math.round(job.duration),
    ...(options.multichannel && job.channels !== null ? { audio_channels: job.channels } : {}),
    language_code: job.language ?? job.detectedLanguage ?? options.language_code,
    language_detection: options.language_detection,
    language_confidence: null,
    language_confidence_threshold: null,
    speech_model: options.speech_model,
    language_model: 'assemblyai_default',
    acoustic_model: 'assemblyai_default',
    punctuate: options.punctuate,
    format_text: options.format_text,
    speaker_labels: options.speaker_labels,
    speakers_expected: options.speakers_expected,
    multichannel: options.multichannel,
    filter_profanity: options.filter_profanity,
    redact_pii: options.redact_pii,
    redact_pii_audio: options.redact_pii_audio,
    redact_pii_policies: options.redact_pii_policies,
    ...(options.redact_pii_sub !== null ? { redact_pii_sub: options.redact_pii_sub } : {}),
    custom_spelling: options.custom_spelling as Transcript['custom_spelling'],
    // The callback's URL and header name as asked, never the header's value (sealed on the job).
    webhook_url: job.callback?.url ?? null,
    webhook_auth: (job.callback?.authHeaderName ?? null) !== null,
    webhook_auth_header_name: job.callback?.authHeaderName ?? null,
    webhook_status_code: job.callback ? webhookStatusCode : null,
    auto_highlights: false,
    summarization: false,
    ...(job.status === 'failed' ? { error: job.errorMessage ?? 'The transcription failed.' } : {}),
  };
}

/** Runs of one speaker (or channel), in time order. */
function utterancesOf(words: readonly TranscriptWord[], context: WordContext): Utterance[] {
  const runs: TranscriptWord[][] = [];
  for (const word of [...words].sort((a, b) => a.start - b.start)) {
    const current = runs.at(-1);
    if (current && current[0].speaker === word.speaker) current.push(word);
    else runs.push([word]);
  }
  return runs.map((run) => {
    const { speaker, ...rest } = group(run, context);
    return { ...rest, speaker: speaker ?? 'A' };
  });
}

export function sentencesOf(job: Transcription): Schema<'AssemblyAiSentences'> {
  const { words, context } = contextOf(job);
  const sentences = sentenceWords(words).map((run) => group(run, context));
  return {
    id: job.id,
    confidence: meanConfidence(words.map((word) => toWord(word, context))),
    audio_duration: job.duration ?? 0,
    sentences,
  };
}

export function paragraphsOf(job: Transcription): Schema<'AssemblyAiParagraphs'> {
  const { words, context } = contextOf(job);
  // AssemblyAI's paragraphs carry no speaker (its sentences do).
  const paragraphs = paragraphWords(words).map(({ words: run }) => {
    const { speaker: _speaker, ...paragraph } = group(run, context);
    return paragraph;
  });
  return {
    id: job.id,
    confidence: meanConfidence(words.map((word) => toWord(word, context))),
    audio_duration: job.duration ?? 0,
    paragraphs,
  };
}

/** Each asked word or phrase (up to five words, case and punctuation ignored): where it is said. */
export function wordSearchOf(job: Transcription, queries: readonly string[]): Schema<'AssemblyAiWordSearch'> {
  const words = (job.resultJson?.words ?? []).map((word) => ({
    key: word.word.toLowerCase().replace(/[^\p{L}\p{N}'’-]/gu, ''),
    start: Math.round(word.start * 1000),
    end: Math.round(word.end * 1000),
  }));
  const matches = queries.map((query) => {
    const keys = query
      .toLowerCase()
      .split(/\s+/)
      .map((part) => part.replace(/[^\p{L}\p{N}'’-]/gu, ''))
      .filter((part) => part !== '');
    const timestamps: number[][] = [];
    const indexes: number[] = [];
    for (let index = 0; keys.length > 0 && index + keys.length <= words.length; index++) {
      if (keys.every((key, offset) => words[index + offset].key === key)) {
        timestamps.push([words[index].start, words[index + keys.length - 1].end]);
        indexes.push(index);
      }
    }
    return { text: query, count: indexes.length, timestamps, indexes };
  });
  return { id: job.id, total_count: matches.reduce((sum, match) => sum + match.count, 0), matches };
}

/** A line of GET /v2/transcript. */
export function toListItem(job: Transcription, resourceBase: string): Schema<'AssemblyAiTranscriptListItem'> {
  return {
    id: job.id,
    resource_url: `${resourceBase}/v2/transcript/${job.id}`,
    status: STATUS[job.status],
    created: utcWithoutZone(job.createdOn),
    completed: job.completedAt ? utcWithoutZone(job.completedAt) : null,
    audio_url: audioUrlOf(job),
    error: job.status === 'failed' ? (job.errorMessage ?? 'The transcription failed.') : null,
  };
}

/** AssemblyAI writes its list's times in UTC without a zone (`2026-11-29T05:00:00.123`), as its contract's pattern says. */
function utcWithoutZone(at: Date): string {
  return at.toISOString().replace(/Z$/, '');
}
