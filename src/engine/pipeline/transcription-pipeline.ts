import { throwIfAborted } from '../abort.util';
import { decodeToPcm } from '../audio/ffmpeg-decoder';
import type { EngineSettings } from '../engine-settings';
import {
  EngineError,
  type Diarizer,
  type Pcm,
  type PipelineStage,
  type ProgressCallback,
  type RecognizedWord,
  type Recognizer,
  type SpeakerTurn,
  type SpeechDetector,
  type TimeSpan,
  type TranscribeRequest,
  type TranscribeResult,
} from '../engine.types';
import { assertLongEnough, assertSpeechFound } from '../speech/audio-length.guard';
import { planChunks } from '../speech/speech-chunker';
import { assignSpeakers, countSpeakers, joinWords } from './transcript-assembly';

export interface PipelineParts {
  recognizer: Recognizer;
  /** detect() may take an AbortSignal as a second argument; the pipeline passes one. */
  speechDetector: SpeechDetector & { detect(pcm: Pcm, signal?: AbortSignal): Promise<TimeSpan[]> };
  diarizer: Diarizer;
  settings: Pick<EngineSettings, 'audio' | 'speech'>;
}

export interface PipelineRunOptions {
  onProgress?: ProgressCallback;
  signal?: AbortSignal;
}

/** Where each stage starts and ends on the 0..100 progress scale. */
const STAGE_RANGE: Record<PipelineStage, readonly [number, number]> = {
  decode: [0, 10],
  'speech-detection': [10, 20],
  recognition: [20, 85],
  diarization: [85, 95],
  assembly: [95, 100],
};

/** decode → speech detection → recognition by chunk → diarization → assembly. */
export class TranscriptionPipeline {
  constructor(private readonly parts: PipelineParts) {}

  async run(request: TranscribeRequest, options: PipelineRunOptions = {}): Promise<TranscribeResult> {
    const { recognizer, speechDetector, diarizer, settings } = this.parts;
    const signal = options.signal ?? new AbortController().signal;
    let lastPercent = -1;
    const report = (stage: PipelineStage, fraction: number): void => {
      const [from, to] = STAGE_RANGE[stage];
      const percent = Math.round(from + (to - from) * Math.min(1, Math.max(0, fraction)));
      if (percent <= lastPercent) return;
      lastPercent = percent;
      options.onProgress?.(percent, stage);
    };
    this.assertLanguageSupported(request.language);

    report('decode', 0);
    const pcm = await decodeToPcm(request.audioPath, { ffmpegPath: settings.audio.ffmpegPath, signal });
    const duration = pcm.samples.length / pcm.sampleRate;
    report('decode', 1);
    throwIfAborted(signal);

    assertLongEnough(pcm, settings.speech.minAudioSeconds);
    const speech = await speechDetector.detect(pcm, signal);
    assertSpeechFound(speech);
    report('speech-detection', 1);

    const chunks = planChunks(speech, duration, {
      paddingSeconds: settings.speech.paddingSeconds,
      maxChunkSeconds: settings.speech.maxChunkSeconds,
      breakSilenceSeconds: settings.speech.chunkBreakSilenceSeconds,
    });
    const words: RecognizedWord[] = [];
    const detectedLanguages: string[] = [];
    for (const [index, chunk] of chunks.entries()) {
      throwIfAborted(signal);
      const samples = pcm.samples.subarray(
        Math.floor(chunk.start * pcm.sampleRate),
        Math.ceil(chunk.end * pcm.sampleRate),
      );
      const output = await recognizer.recognize(
        { samples, offset: chunk.start },
        { language: request.language, vocabulary: request.vocabulary, signal },
      );
      words.push(...output.words);
      if (output.detectedLanguage) detectedLanguages.push(output.detectedLanguage);
      report('recognition', (index + 1) / chunks.length);
      // Recognition is synchronous native work; yielding between chunks lets progress messages go out and
      // lets an engine child whose worker died notice the IPC disconnect and exit instead of running on.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    throwIfAborted(signal);
    if (words.length === 0) throw new EngineError('NO_SPOKEN_AUDIO', 'no words were recognised in the audio');
    words.sort((a, b) => a.start - b.start);

    report('diarization', 0);
    const turns: SpeakerTurn[] = await diarizer.diarize(pcm, speech, request.speakers);
    throwIfAborted(signal);
    report('diarization', 1);

    const transcriptWords = assignSpeakers(words, turns);
    const result: TranscribeResult = {
      text: joinWords(transcriptWords),
      words: transcriptWords,
      detectedLanguage: request.language === 'auto' ? mostFrequent(detectedLanguages) : request.language,
      duration,
      speakerCount: countSpeakers(transcriptWords),
    };
    report('assembly', 1);
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

function mostFrequent(values: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best: string | null = null;
  for (const [value, count] of counts) if (best === null || count > (counts.get(best) ?? 0)) best = value;
  return best;
}
