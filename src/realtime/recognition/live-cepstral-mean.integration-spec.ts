import { testAudio } from '../../../test/support/shared-paths';
import { decodeToPcm } from '../../engine/audio/ffmpeg-decoder';
import { defaultEngineSettings } from '../../engine/engine-settings';
import { PocketSphinxDecoder } from '../../engine/pocketsphinx/pocketsphinx-decoder';
import { LIVE_CEPSTRAL_MEAN } from './live-decoding';

describe('live cepstral mean seeding (real libpocketsphinx)', () => {
  let decoder: PocketSphinxDecoder;
  beforeEach(() => {
    decoder = new PocketSphinxDecoder(defaultEngineSettings().pocketsphinx);
  });
  afterEach(() => decoder.close());

  it('finds the en-us model prior in a fresh decoder and replaces it with the speech mean', () => {
    expect(decoder.seedLiveCepstralMean(LIVE_CEPSTRAL_MEAN.modelPrior, LIVE_CEPSTRAL_MEAN.speechMean)).toBe(
      true,
    );
    // The mean is no longer the prior, so a second seeding finds nothing to replace.
    expect(decoder.seedLiveCepstralMean(LIVE_CEPSTRAL_MEAN.modelPrior, LIVE_CEPSTRAL_MEAN.speechMean)).toBe(
      false,
    );
    expect(decoder.seedLiveCepstralMean(LIVE_CEPSTRAL_MEAN.speechMean, LIVE_CEPSTRAL_MEAN.modelPrior)).toBe(
      true,
    );
  });

  it('leaves a decoder alone whose mean is not the expected prior, or of another length', () => {
    const otherPrior = LIVE_CEPSTRAL_MEAN.modelPrior.map((value) => value + 1);
    expect(decoder.seedLiveCepstralMean(otherPrior, LIVE_CEPSTRAL_MEAN.speechMean)).toBe(false);
    expect(
      decoder.seedLiveCepstralMean(
        LIVE_CEPSTRAL_MEAN.modelPrior.slice(1),
        LIVE_CEPSTRAL_MEAN.speechMean.slice(1),
      ),
    ).toBe(false);
    expect(decoder.seedLiveCepstralMean(LIVE_CEPSTRAL_MEAN.modelPrior, LIVE_CEPSTRAL_MEAN.speechMean)).toBe(
      true,
    );
  });
});

describe('adopting the mean of the speech fed (real libpocketsphinx)', () => {
  const settings = defaultEngineSettings().pocketsphinx;
  /** LDC93S1.wav: 2.9 s, under the 3 s the running mean takes in before it shifts its window. */
  let speech: Int16Array;
  let batchMean: number[];
  beforeAll(async () => {
    const pcm = await decodeToPcm(testAudio('coqui-stt/LDC93S1.wav'));
    speech = Int16Array.from(pcm.samples, (sample) => Math.round(Math.max(-1, Math.min(1, sample)) * 32767));
    // A file chunk is normalised with its own mean: what the decoder holds after decoding it whole.
    const fileDecoder = new PocketSphinxDecoder(settings);
    fileDecoder.decode(speech);
    batchMean = fileDecoder.cepstralMean() ?? [];
    fileDecoder.close();
  });

  function seededDecoder(): PocketSphinxDecoder {
    const decoder = new PocketSphinxDecoder(settings);
    expect(decoder.seedLiveCepstralMean(LIVE_CEPSTRAL_MEAN.modelPrior, LIVE_CEPSTRAL_MEAN.speechMean)).toBe(
      true,
    );
    return decoder;
  }

  it("replaces the seeded mean by the fed speech's own mean once the utterance ends", () => {
    const decoder = seededDecoder();
    try {
      decoder.startUtterance();
      decoder.feed(speech);
      expect(decoder.adoptLiveInputMean(20)).toBe(true);
      decoder.abandonUtterance();
      const adopted = decoder.cepstralMean() ?? [];
      // The clip is far from the typical mean (c0 about 38 against 51.7) and the adopted mean is the clip's:
      // equal to the whole-chunk mean but for the few frames still in the live front end's window.
      expect(Math.abs(LIVE_CEPSTRAL_MEAN.speechMean[0] - batchMean[0])).toBeGreaterThan(5);
      for (const [index, value] of adopted.entries())
        expect(Math.abs(value - batchMean[index])).toBeLessThan(0.5);
    } finally {
      decoder.close();
    }
  });

  it('changes nothing for an unseeded decoder or too few frames', () => {
    const unseeded = new PocketSphinxDecoder(settings);
    const seeded = seededDecoder();
    try {
      unseeded.startUtterance();
      unseeded.feed(speech);
      expect(unseeded.adoptLiveInputMean(20)).toBe(false);
      unseeded.abandonUtterance();

      seeded.startUtterance();
      seeded.feed(speech.subarray(0, 1600));
      expect(seeded.adoptLiveInputMean(20)).toBe(false);
      seeded.feed(speech.subarray(1600));
      seeded.abandonUtterance();
      // Ending the utterance moved the mean the way sphinxbase does (part way), not to the clip's own.
      const mean = seeded.cepstralMean() ?? [];
      expect(Math.abs(mean[0] - batchMean[0])).toBeGreaterThan(1);
      expect(Math.abs(mean[0] - LIVE_CEPSTRAL_MEAN.speechMean[0])).toBeGreaterThan(1);
    } finally {
      unseeded.close();
      seeded.close();
    }
  });
});
