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
