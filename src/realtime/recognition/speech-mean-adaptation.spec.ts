import { LIVE_SAMPLE_RATE } from './live-transcriber';
import {
  SPEECH_MEAN_ADAPTATION_SECONDS,
  SpeechMeanAdaptation,
  type MeanAdaptableRecognizer,
} from './speech-mean-adaptation';

/** Records what the adaptation asks of the recogniser, in order; `measurable` is adoptSpeechMean's answer. */
function recordingRecognizer(measurable = true): MeanAdaptableRecognizer & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    startUtterance: (vocabulary) => calls.push(`start ${vocabulary.join(',')}`),
    feed: (samples) => calls.push(`feed ${samples[0]}×${samples.length}`),
    partialText: () => '',
    endUtterance: () => {
      calls.push('end');
      return [];
    },
    abandonUtterance: () => calls.push('abandon'),
    adoptSpeechMean: () => {
      calls.push('adopt');
      return measurable;
    },
  };
}

/** A piece of `seconds` of audio whose samples all hold `marker`, so a re-fed piece is recognisable. */
function piece(marker: number, seconds: number): Int16Array {
  return new Int16Array(seconds * LIVE_SAMPLE_RATE).fill(marker);
}

describe('SpeechMeanAdaptation', () => {
  const half = SPEECH_MEAN_ADAPTATION_SECONDS / 2;

  it('decodes the first utterance again from its start once it holds the adaptation seconds, then never again', () => {
    const recognizer = recordingRecognizer();
    const adapting = new SpeechMeanAdaptation(recognizer);
    adapting.startUtterance(['Kubernetes']);
    adapting.feed(piece(1, half));
    adapting.feed(piece(2, half));
    adapting.feed(piece(3, half));
    adapting.endUtterance(0);
    adapting.startUtterance(['Kubernetes']);
    adapting.feed(piece(4, SPEECH_MEAN_ADAPTATION_SECONDS * 2));
    adapting.endUtterance(5);
    const samples = half * LIVE_SAMPLE_RATE;
    expect(recognizer.calls).toEqual([
      'start Kubernetes',
      `feed 1×${samples}`,
      `feed 2×${samples}`,
      'adopt',
      'abandon',
      'start Kubernetes',
      `feed 1×${samples}`,
      `feed 2×${samples}`,
      `feed 3×${samples}`,
      'end',
      'start Kubernetes',
      `feed 4×${samples * 4}`,
      'end',
    ]);
  });

  it('decodes a first utterance shorter than that again before its words are read', () => {
    const recognizer = recordingRecognizer();
    const adapting = new SpeechMeanAdaptation(recognizer);
    adapting.startUtterance([]);
    adapting.feed(piece(7, 1));
    adapting.endUtterance(0);
    expect(recognizer.calls).toEqual([
      'start ',
      `feed 7×${LIVE_SAMPLE_RATE}`,
      'adopt',
      'abandon',
      'start ',
      `feed 7×${LIVE_SAMPLE_RATE}`,
      'end',
    ]);
  });

  it('splits a piece that crosses the mark: the mean is taken at the mark, the rest fed after the second decode', () => {
    const recognizer = recordingRecognizer();
    const adapting = new SpeechMeanAdaptation(recognizer);
    adapting.startUtterance([]);
    adapting.feed(piece(5, SPEECH_MEAN_ADAPTATION_SECONDS + 1));
    const mark = SPEECH_MEAN_ADAPTATION_SECONDS * LIVE_SAMPLE_RATE;
    expect(recognizer.calls).toEqual([
      'start ',
      `feed 5×${mark}`,
      'adopt',
      'abandon',
      'start ',
      `feed 5×${mark}`,
      `feed 5×${LIVE_SAMPLE_RATE}`,
    ]);
  });

  it('keeps the first decode when the mean cannot be measured', () => {
    const recognizer = recordingRecognizer(false);
    const adapting = new SpeechMeanAdaptation(recognizer);
    adapting.startUtterance([]);
    adapting.feed(piece(7, 1));
    adapting.endUtterance(0);
    expect(recognizer.calls).toEqual(['start ', `feed 7×${LIVE_SAMPLE_RATE}`, 'adopt', 'end']);
  });

  it('takes the mean of a cleared first utterance without decoding it again', () => {
    const recognizer = recordingRecognizer();
    const adapting = new SpeechMeanAdaptation(recognizer);
    adapting.startUtterance([]);
    adapting.feed(piece(7, 1));
    adapting.abandonUtterance();
    adapting.startUtterance([]);
    adapting.feed(piece(8, 1));
    adapting.endUtterance(0);
    expect(recognizer.calls).toEqual([
      'start ',
      `feed 7×${LIVE_SAMPLE_RATE}`,
      'adopt',
      'abandon',
      'start ',
      `feed 8×${LIVE_SAMPLE_RATE}`,
      'end',
    ]);
  });
});
