import { createHash } from 'node:crypto';
import type { TranscriptWord } from '../engine/engine.types';
import { paragraphWords, sentenceWords } from '../transcriptions/export/word-groups';
import type { Transcription } from '../transcriptions/transcription.entity';
import type { Schema } from '../openapi/contract-types';
import type { DeepgramListenRequest } from './deepgram-listen-request';

type ListenResponse = Schema<'DeepgramListenResponse'>;
type Channel = Schema<'DeepgramChannel'>;
type Alternative = Schema<'DeepgramAlternative'>;
type Word = Schema<'DeepgramWord'>;
type Utterance = Schema<'DeepgramUtterance'>;
type Paragraphs = NonNullable<Alternative['paragraphs']>;

/** The job's fields the answer is made of. */
export type ListenedJob = Pick<
  Transcription,
  'id' | 'model' | 'createdOn' | 'duration' | 'channels' | 'detectedLanguage' | 'language'
> & { words: readonly TranscriptWord[] };

/** What the request asked beside the job's options (DeepgramListenRequest without them). */
export type ListenAnswerOptions = Omit<DeepgramListenRequest, 'options'>;

/** Recognisers' punctuation around a word; Deepgram's `word` is the bare lower-case word. */
const EDGE_PUNCTUATION = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;

/**
 * A completed job as Deepgram's pre-recorded answer (docs/compatibility.md, "Deepgram: the answer"): one channel,
 * or one per channel of a multichannel job (its words are labelled CHANNEL_n); speakers numbered from 0 in order
 * of first appearance; confidences only where the recogniser gave them.
 */
export function formatListenResponse(
  job: ListenedJob,
  asked: ListenAnswerOptions,
  sha256: string,
): ListenResponse {
  const channelWords = splitByChannel(job.words, job.channels);
  const speakerNumbers = numberSpeakers(job.words, job.channels !== null);
  const toWord = (word: TranscriptWord): Word => deepgramWord(word, asked, speakerNumbers);
  const channels: Channel[] = channelWords.map((words) => ({
    alternatives: [alternative(words, asked, toWord, speakerNumbers)],
    ...(asked.detectLanguage ? { detected_language: job.detectedLanguage ?? job.language ?? 'en' } : {}),
  }));
  const results: ListenResponse['results'] = { channels };
  if (asked.utterances) {
    results.utterances = channelWords
      .flatMap((words, channel) =>
        splitUtterances(words, asked.utteranceSplit).map((run) => utterance(job.id, channel, run, toWord)),
      )
      .sort((a, b) => a.start - b.start || a.channel - b.channel);
  }
  return {
    metadata: {
      transaction_key: 'deprecated',
      request_id: job.id,
      sha256,
      created: job.createdOn.toISOString(),
      duration: job.duration ?? 0,
      channels: channelWords.length,
      models: [asked.model],
      model_info: {
        [asked.model]: { name: asked.model, version: job.model, arch: 'open-transcription-service' },
      },
    },
    results,
  };
}

/** The words of each channel in order; a job without channels is one. */
function splitByChannel(words: readonly TranscriptWord[], channels: number | null): TranscriptWord[][] {
  if (channels === null) return [[...words]];
  const byChannel: TranscriptWord[][] = Array.from({ length: channels }, () => []);
  for (const word of words) {
    const index = Number(/^CHANNEL_(\d+)$/.exec(word.speaker ?? '')?.[1] ?? 1) - 1;
    byChannel[Math.min(Math.max(index, 0), channels - 1)].push(word);
  }
  return byChannel;
}

/** Raw speaker ids (`SPEAKER_00`) as Deepgram's 0-based integers, in order of first appearance. */
function numberSpeakers(words: readonly TranscriptWord[], multichannel: boolean): Map<string, number> {
  const numbers = new Map<string, number>();
  if (multichannel) return numbers;
  for (const word of words) {
    if (word.speaker !== null && !numbers.has(word.speaker)) numbers.set(word.speaker, numbers.size);
  }
  return numbers;
}

function deepgramWord(word: TranscriptWord, asked: ListenAnswerOptions, speakers: Map<string, number>): Word {
  const speaker = word.speaker === null ? undefined : speakers.get(word.speaker);
  return {
    word: bareWord(word.word),
    start: word.start,
    end: word.end,
    ...(word.confidence !== undefined ? { confidence: word.confidence } : {}),
    ...(asked.diarize && speaker !== undefined ? { speaker } : {}),
    ...(asked.punctuate ? { punctuated_word: word.word } : {}),
  };
}

export function bareWord(text: string): string {
  return text.replace(EDGE_PUNCTUATION, '').toLowerCase() || text.toLowerCase();
}

function transcriptOf(words: readonly Word[]): string {
  return words.map((word) => word.punctuated_word ?? word.word).join(' ');
}

/** The mean of the words' confidences; undefined when none has one. */
function meanConfidence(words: readonly Word[]): number | undefined {
  const known = words.map((word) => word.confidence).filter((value): value is number => value !== undefined);
  if (known.length === 0) return undefined;
  return Math.round((known.reduce((sum, value) => sum + value, 0) / known.length) * 10_000) / 10_000;
}

function alternative(
  words: readonly TranscriptWord[],
  asked: ListenAnswerOptions,
  toWord: (word: TranscriptWord) => Word,
  speakers: Map<string, number>,
): Alternative {
  const converted = words.map(toWord);
  const confidence = meanConfidence(converted);
  return {
    transcript: transcriptOf(converted),
    ...(confidence !== undefined ? { confidence } : {}),
    words: converted,
    ...(asked.paragraphs ? { paragraphs: paragraphsOf(words, asked, speakers) } : {}),
  };
}

/** The export's paragraphs (speaker changes, long pauses, length), each split into sentences. */
function paragraphsOf(
  words: readonly TranscriptWord[],
  asked: ListenAnswerOptions,
  speakers: Map<string, number>,
): Paragraphs {
  const items = paragraphWords(words).map(({ paragraph, words: own }) => {
    const speaker = paragraph.speaker === null ? undefined : speakers.get(paragraph.speaker);
    return {
      sentences: sentencesOf(own, asked),
      ...(asked.diarize && speaker !== undefined ? { speaker } : {}),
      num_words: own.length,
      start: paragraph.start,
      end: paragraph.end,
    };
  });
  const transcript = items
    .map((item) => {
      const text = item.sentences.map((sentence) => sentence.text).join(' ');
      return item.speaker !== undefined ? `Speaker ${item.speaker}: ${text}` : text;
    })
    .join('\n\n');
  return { transcript: items.length > 0 ? `\n${transcript}\n` : '', paragraphs: items };
}

function sentencesOf(
  words: readonly TranscriptWord[],
  asked: ListenAnswerOptions,
): Paragraphs['paragraphs'][number]['sentences'] {
  return sentenceWords(words).map((sentence) => ({
    text: sentence.map((word) => (asked.punctuate ? word.word : bareWord(word.word))).join(' '),
    start: sentence[0].start,
    end: Math.max(...sentence.map((word) => word.end)),
  }));
}

/** Runs of one speaker, cut where the silence between two words is at least `splitSeconds`. */
function splitUtterances(words: readonly TranscriptWord[], splitSeconds: number): TranscriptWord[][] {
  const runs: TranscriptWord[][] = [];
  let current: TranscriptWord[] = [];
  for (const word of words) {
    const last = current.at(-1);
    if (last !== undefined && (last.speaker !== word.speaker || word.start - last.end >= splitSeconds)) {
      runs.push(current);
      current = [];
    }
    current.push(word);
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

function utterance(
  jobId: string,
  channel: number,
  run: readonly TranscriptWord[],
  toWord: (word: TranscriptWord) => Word,
): Utterance {
  const words = run.map(toWord);
  const confidence = meanConfidence(words);
  const speaker = words[0].speaker;
  return {
    start: run[0].start,
    end: Math.max(...run.map((word) => word.end)),
    ...(confidence !== undefined ? { confidence } : {}),
    channel,
    transcript: transcriptOf(words),
    words,
    ...(speaker !== undefined ? { speaker } : {}),
    id: stableUuid(`${jobId}:${channel}:${run[0].start}`),
  };
}

/** The same utterance of the same job has the same id in every answer (a retry attached to the job included). */
function stableUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
