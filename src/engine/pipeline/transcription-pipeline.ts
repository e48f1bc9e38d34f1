import { abortReason, throwIfAborted, yieldToEventLoop } from '../abort.util';
import { decodePcmStream } from '../audio/ffmpeg-decoder';
import { probeMedia } from '../audio/media-probe';
import { SampleWindow } from '../audio/sample-window';
import type { EngineSettings } from '../engine-settings';
import {
  EngineError,
  type DiarizationSession,
  type Diarizer,
  type PipelineStage,
  type ProgressCallback,
  type RecognizedWord,
  type Recognizer,
  type SpeechDetector,
  type TranscribeRequest,
  type TranscribeResult,
  type TranscriptWord,
  type ChunkTiming,
} from '../engine.types';
import {
  assertLongEnough,
  assertNotTooLong,
  assertSpeechFound,
  assertWithinAdmitted,
} from '../speech/audio-length.guard';
import { ChunkPlanner, type PlannedChunk } from '../speech/speech-chunker';
import { BoundedTasks } from './bounded-tasks';
import { assignSpeakers, countSpeakers, joinWords, mergeChannelWords } from './transcript-assembly';

export interface PipelineParts {
  /** Takes up to `settings.parallelism` concurrent recognize() calls. */
  recognizer: Recognizer;
  speechDetector: SpeechDetector;
  diarizer: Diarizer;
  settings: Pick<EngineSettings, 'audio' | 'speech' | 'parallelism' | 'maxAudioSeconds'>;
}

export interface PipelineRunOptions {
  onProgress?: ProgressCallback;
  /** The file's duration as soon as it is known (container header), before decoding. */
  onDuration?: (seconds: number) => void;
  /** Each chunk once recognised: when, and which stretch of the audio (tracing's per-chunk spans). */
  onChunk?: (chunk: ChunkTiming) => void;
  signal?: AbortSignal;
}

/** Where each stage starts and ends on the 0..100 progress scale. */
const STAGE_RANGE: Record<PipelineStage, readonly [number, number]> = {
  decode: [0, 2],
  recognition: [2, 90],
  diarization: [90, 98],
  assembly: [98, 100],
};

/** One decoded stream's recognition: the file's mix, or one channel of it. */
interface StreamRecognition {
  words: RecognizedWord[];
  detectedLanguages: string[];
  /** Seconds decoded. */
  duration: number;
  speechFound: boolean;
}

/** What the streams of one file share while they are recognised. */
interface StreamContext {
  request: TranscribeRequest;
  /** One slot per concurrent recognize() call, shared by all streams of the file. */
  tasks: BoundedTasks;
  session: DiarizationSession;
  expectedSeconds: number | null;
  signal: AbortSignal;
  /** The channel this stream is (with `request.channels`), else null. */
  channel: number | null;
  onChunk?: (chunk: ChunkTiming) => void;
  /** The fraction of this stream recognised so far (0..1). */
  onRecognised(fraction: number): void;
  /** Seconds decoded so far. */
  onDecoded(seconds: number): void;
}

/** Multichannel streams are not diarized: a word's speaker is its channel. */
const NO_DIARIZATION: DiarizationSession = {
  add: async () => undefined,
  finish: async () => [],
};

/**
 * decode → speech detection → recognition by chunk → diarization → assembly, as one stream: ffmpeg's output
 * is read block by block, speech is detected as it arrives, each chunk goes to the recogniser (several at
 * once) and to the diarizer's session as soon as no later speech can join it, and the audio is forgotten once
 * no pending chunk needs it. Memory therefore depends on the chunk length and the parallelism, never on the
 * file's duration; ffmpeg waits while the recognisers are busy.
 *
 * With `request.channels`, each channel is such a stream of its own (its own ffmpeg, speech detection and
 * sample window), all recognised at once through the same `parallelism` slots, without diarization; the
 * words are merged by time, each labelled with its channel.
 */
export class TranscriptionPipeline {
  constructor(private readonly parts: PipelineParts) {}

  async run(request: TranscribeRequest, options: PipelineRunOptions = {}): Promise<TranscribeResult> {
    const { diarizer, settings } = this.parts;
    const signal = options.signal ?? new AbortController().signal;
    const progress = new ProgressReporter(options.onProgress);
    this.assertLanguageSupported(request.language);

    progress.report('decode', 0);
    const probe = await probeMedia(request.audioPath, {
      ffprobePath: settings.audio.ffprobePath,
      signal,
    }).catch(() => null);
    const expectedSeconds = probe?.durationSeconds ?? null;
    if (expectedSeconds !== null) {
      assertNotTooLong(expectedSeconds, settings.maxAudioSeconds);
      options.onDuration?.(expectedSeconds);
    }
    const tasks = new BoundedTasks(settings.parallelism);
    let reportedSeconds = 0;
    // Recognition progress is the mean of the streams' fractions (one stream without `channels`).
    const fractions = new Array<number>(request.channels ?? 1).fill(0);
    const context = (session: DiarizationSession, streamSignal: AbortSignal, index: number) =>
      ({
        request,
        tasks,
        session,
        expectedSeconds,
        signal: streamSignal,
        channel: request.channels === undefined ? null : index,
        onChunk: options.onChunk,
        onRecognised: (fraction: number) => {
          fractions[index] = fraction;
          progress.report('recognition', fractions.reduce((sum, value) => sum + value, 0) / fractions.length);
        },
        onDecoded: (seconds: number) => {
          if (expectedSeconds === null && seconds - reportedSeconds >= 60) {
            // No stated duration: the deadline grows with what has been decoded.
            reportedSeconds = seconds;
            options.onDuration?.(reportedSeconds);
          }
        },
      }) satisfies StreamContext;

    let words: TranscriptWord[];
    let streams: StreamRecognition[];
    if (request.channels === undefined) {
      const session = diarizer.begin(request.speakers);
      const stream = await this.recogniseStream(
        decodePcmStream(request.audioPath, { ffmpegPath: settings.audio.ffmpegPath, signal }),
        context(session, signal, 0),
      );
      streams = [stream];
      assertSpeechFound(stream.speechFound);
      if (stream.words.length === 0) {
        throw new EngineError('NO_SPOKEN_AUDIO', 'no words were recognised in the audio');
      }
      progress.report('diarization', 0);
      const turns = await session.finish();
      throwIfAborted(signal);
      progress.report('diarization', 1);
      words = assignSpeakers(stream.words, turns);
    } else {
      streams = await this.recogniseChannels(
        request.channels,
        (channel, channelSignal) =>
          this.recogniseStream(
            decodePcmStream(request.audioPath, {
              ffmpegPath: settings.audio.ffmpegPath,
              signal: channelSignal,
              channel,
            }),
            context(NO_DIARIZATION, channelSignal, channel),
          ),
        signal,
      );
      throwIfAborted(signal);
      assertSpeechFound(streams.some((stream) => stream.speechFound));
      words = mergeChannelWords(streams.map((stream) => stream.words));
      if (words.length === 0)
        throw new EngineError('NO_SPOKEN_AUDIO', 'no words were recognised in the audio');
    }

    const detectedLanguages = streams.flatMap((stream) => stream.detectedLanguages);
    const result: TranscribeResult = {
      text: joinWords(words),
      words,
      detectedLanguage: request.language === 'auto' ? mostFrequent(detectedLanguages) : request.language,
      duration: Math.max(...streams.map((stream) => stream.duration)),
      speakerCount: countSpeakers(words),
    };
    progress.report('assembly', 1);
    return result;
  }

  /**
   * Every channel at once. The first channel that fails stops the others (their ffmpeg is killed), and its
   * error is the job's.
   */
  private async recogniseChannels(
    channels: number,
    recognise: (channel: number, signal: AbortSignal) => Promise<StreamRecognition>,
    signal: AbortSignal,
  ): Promise<StreamRecognition[]> {
    const stopAll = new AbortController();
    const forward = (): void => stopAll.abort(signal.reason);
    signal.addEventListener('abort', forward, { once: true });
    try {
      const running = Array.from({ length: channels }, (_, channel) =>
        recognise(channel, stopAll.signal).catch((error: unknown) => {
          if (!stopAll.signal.aborted) stopAll.abort(error);
          throw error;
        }),
      );
      const settled = await Promise.allSettled(running);
      const failure = settled.find((outcome) => outcome.status === 'rejected');
      if (failure) throw signal.aborted ? abortReason(signal) : (stopAll.signal.reason as Error);
      return settled.map((outcome) => (outcome as PromiseFulfilledResult<StreamRecognition>).value);
    } finally {
      signal.removeEventListener('abort', forward);
    }
  }

  /** Speech detection, chunking and recognition of one decoded stream; the session sees its chunks in order. */
  private async recogniseStream(
    blocks: AsyncIterable<Float32Array>,
    context: StreamContext,
  ): Promise<StreamRecognition> {
    const { speechDetector, recognizer, settings } = this.parts;
    const { request, tasks, session, signal } = context;
    const audio = new SampleWindow();
    const detection = speechDetector.open();
    const planner = new ChunkPlanner({
      paddingSeconds: settings.speech.paddingSeconds,
      maxChunkSeconds: settings.speech.maxChunkSeconds,
      breakSilenceSeconds: settings.speech.chunkBreakSilenceSeconds,
    });
    // A span is reported once it has ended, and no span is longer than the VAD's maximum: so every span still
    // to come starts after (decoded − this).
    const detectionLagSeconds = 2 * settings.speech.maxChunkSeconds + settings.speech.minSilenceSeconds + 1;
    const words: RecognizedWord[] = [];
    const detectedLanguages: string[] = [];
    const waiting: PlannedChunk[] = [];
    const unfinishedStarts = new Set<number>();
    let speechFound = false;

    const recognise = async (chunk: PlannedChunk): Promise<void> => {
      const samples = audio.extract(chunk.start, chunk.end);
      // In time order, on this thread, while earlier chunks are being recognised.
      await session.add(samples, chunk.start, chunk.speech);
      unfinishedStarts.add(chunk.start);
      await tasks.run(async () => {
        const startedAt = Date.now();
        const output = await recognizer.recognize(
          { samples, offset: chunk.start },
          { language: request.language, vocabulary: request.vocabulary, prompt: request.prompt, signal },
        );
        context.onChunk?.({
          startedAt,
          endedAt: Date.now(),
          offsetSeconds: chunk.start,
          durationSeconds: chunk.end - chunk.start,
          channel: context.channel,
          words: output.words.length,
        });
        words.push(...output.words);
        if (output.detectedLanguage) detectedLanguages.push(output.detectedLanguage);
        unfinishedStarts.delete(chunk.start);
        reportRecognition();
      });
    };
    const reportRecognition = (): void => {
      const decoded = audio.totalSeconds;
      const done = Math.min(
        decoded,
        ...unfinishedStarts,
        ...waiting.map((chunk) => chunk.start),
        planner.earliestNeeded() ?? decoded,
      );
      context.onRecognised(done / Math.max(context.expectedSeconds ?? decoded, decoded, 1e-9));
    };
    const recogniseReady = async (endOfFile: boolean): Promise<void> => {
      while (waiting.length > 0 && (endOfFile || waiting[0].end <= audio.totalSeconds)) {
        await recognise(waiting.shift() as PlannedChunk);
      }
    };
    const addSpeech = (spans: readonly { start: number; end: number }[]): void => {
      for (const span of spans) {
        speechFound = true;
        planner.addSpeech(span);
      }
    };

    for await (const block of blocks) {
      audio.append(block);
      assertNotTooLong(audio.totalSeconds, settings.maxAudioSeconds);
      assertWithinAdmitted(audio.totalSeconds, request.admittedSeconds);
      addSpeech(detection.accept(block));
      waiting.push(...planner.takeSettled(audio.totalSeconds - detectionLagSeconds));
      await recogniseReady(false);
      audio.dropBefore(
        Math.min(
          waiting[0]?.start ?? Infinity,
          planner.earliestNeeded() ?? Infinity,
          audio.totalSeconds - detectionLagSeconds - settings.speech.paddingSeconds,
        ),
      );
      reportRecognition();
      context.onDecoded(audio.totalSeconds);
      tasks.throwIfFailed();
      // VAD and planning are synchronous: let progress, aborts and IPC through between blocks.
      await yieldToEventLoop();
      throwIfAborted(signal);
    }
    const duration = audio.totalSeconds;
    assertLongEnough(duration, settings.speech.minAudioSeconds);
    addSpeech(detection.finish());
    waiting.push(...planner.finish(duration));
    await recogniseReady(true);
    await tasks.drain();
    throwIfAborted(signal);
    words.sort((a, b) => a.start - b.start);
    return { words, detectedLanguages, duration, speechFound };
  }

  /** Fails fast, before decoding, when the recogniser cannot serve the requested language. */
  private assertLanguageSupported(language: string): void {
    const { languages, name } = this.parts.recognizer;
    if (language === 'auto' || languages === 'all' || languages.has(language.toLowerCase())) return;
    throw new EngineError(
      'UNSUPPORTED_LANGUAGE',
      `language '${language}' is not supported by the ${name} engine`,
    );
  }
}

/** Turns stage fractions into whole percentages that only ever go up. */
class ProgressReporter {
  private last = -1;

  constructor(private readonly onProgress: ProgressCallback | undefined) {}

  report(stage: PipelineStage, fraction: number): void {
    const [from, to] = STAGE_RANGE[stage];
    const percent = Math.floor(from + (to - from) * Math.min(1, Math.max(0, fraction)));
    if (percent <= this.last) return;
    this.last = percent;
    this.onProgress?.(percent, stage);
  }
}

function mostFrequent(values: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best: string | null = null;
  for (const [value, count] of counts) if (best === null || count > (counts.get(best) ?? 0)) best = value;
  return best;
}
