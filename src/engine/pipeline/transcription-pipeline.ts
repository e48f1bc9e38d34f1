import { throwIfAborted, yieldToEventLoop } from '../abort.util';
import { decodePcmStream } from '../audio/ffmpeg-decoder';
import { probeMedia } from '../audio/media-probe';
import { SampleWindow } from '../audio/sample-window';
import type { EngineSettings } from '../engine-settings';
import {
  EngineError,
  type Diarizer,
  type PipelineStage,
  type ProgressCallback,
  type RecognizedWord,
  type Recognizer,
  type SpeechDetector,
  type TranscribeRequest,
  type TranscribeResult,
} from '../engine.types';
import {
  assertLongEnough,
  assertNotTooLong,
  assertSpeechFound,
  assertWithinAdmitted,
} from '../speech/audio-length.guard';
import { ChunkPlanner, type PlannedChunk } from '../speech/speech-chunker';
import { BoundedTasks } from './bounded-tasks';
import { assignSpeakers, countSpeakers, joinWords } from './transcript-assembly';

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
  signal?: AbortSignal;
}

/** Where each stage starts and ends on the 0..100 progress scale. */
const STAGE_RANGE: Record<PipelineStage, readonly [number, number]> = {
  decode: [0, 2],
  recognition: [2, 90],
  diarization: [90, 98],
  assembly: [98, 100],
};

/**
 * decode → speech detection → recognition by chunk → diarization → assembly, as one stream: ffmpeg's output
 * is read block by block, speech is detected as it arrives, each chunk goes to the recogniser (several at
 * once) and to the diarizer's session as soon as no later speech can join it, and the audio is forgotten once
 * no pending chunk needs it. Memory therefore depends on the chunk length and the parallelism, never on the
 * file's duration; ffmpeg waits while the recognisers are busy.
 */
export class TranscriptionPipeline {
  constructor(private readonly parts: PipelineParts) {}

  async run(request: TranscribeRequest, options: PipelineRunOptions = {}): Promise<TranscribeResult> {
    const { recognizer, speechDetector, diarizer, settings } = this.parts;
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
    const session = diarizer.begin(request.speakers);
    const tasks = new BoundedTasks(settings.parallelism);
    const words: RecognizedWord[] = [];
    const detectedLanguages: string[] = [];
    const waiting: PlannedChunk[] = [];
    const unfinishedStarts = new Set<number>();
    let speechFound = false;
    let reportedSeconds = 0;

    const recognise = async (chunk: PlannedChunk): Promise<void> => {
      const samples = audio.extract(chunk.start, chunk.end);
      // In time order, on this thread, while earlier chunks are being recognised.
      await session.add(samples, chunk.start, chunk.speech);
      unfinishedStarts.add(chunk.start);
      await tasks.run(async () => {
        const output = await recognizer.recognize(
          { samples, offset: chunk.start },
          { language: request.language, vocabulary: request.vocabulary, prompt: request.prompt, signal },
        );
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
      progress.report('recognition', done / Math.max(expectedSeconds ?? decoded, decoded, 1e-9));
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

    for await (const block of decodePcmStream(request.audioPath, {
      ffmpegPath: settings.audio.ffmpegPath,
      signal,
    })) {
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
      if (expectedSeconds === null && audio.totalSeconds - reportedSeconds >= 60) {
        // No stated duration: the deadline grows with what has been decoded.
        reportedSeconds = audio.totalSeconds;
        options.onDuration?.(reportedSeconds);
      }
      tasks.throwIfFailed();
      // VAD and planning are synchronous: let progress, aborts and IPC through between blocks.
      await yieldToEventLoop();
      throwIfAborted(signal);
    }
    const duration = audio.totalSeconds;
    assertLongEnough(duration, settings.speech.minAudioSeconds);
    addSpeech(detection.finish());
    assertSpeechFound(speechFound);
    waiting.push(...planner.finish(duration));
    await recogniseReady(true);
    await tasks.drain();
    throwIfAborted(signal);
    if (words.length === 0) throw new EngineError('NO_SPOKEN_AUDIO', 'no words were recognised in the audio');
    words.sort((a, b) => a.start - b.start);

    progress.report('diarization', 0);
    const turns = await session.finish();
    throwIfAborted(signal);
    progress.report('diarization', 1);

    const transcriptWords = assignSpeakers(words, turns);
    const result: TranscribeResult = {
      text: joinWords(transcriptWords),
      words: transcriptWords,
      detectedLanguage: request.language === 'auto' ? mostFrequent(detectedLanguages) : request.language,
      duration,
      speakerCount: countSpeakers(transcriptWords),
    };
    progress.report('assembly', 1);
    return result;
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
