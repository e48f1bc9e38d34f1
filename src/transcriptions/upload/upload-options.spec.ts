import { ProblemException } from '../../common/problem/problem.exception';
import { MAX_CHANNELS, parseUploadOptions, recognisedChannels } from './upload-options';

/** The field errors of the problem `action` throws. */
function fieldErrors(action: () => unknown): Record<string, string[]> {
  try {
    action();
  } catch (error) {
    if (error instanceof ProblemException) {
      return (error.extensions as { errors: { fieldErrors: Record<string, string[]> } }).errors.fieldErrors;
    }
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('multichannel', () => {
  it('is off unless the field says true, in any case; anything but true/false is refused', () => {
    expect(parseUploadOptions({}).multichannel).toBe(false);
    expect(parseUploadOptions({ multichannel: '' }).multichannel).toBe(false);
    expect(parseUploadOptions({ multichannel: 'False' }).multichannel).toBe(false);
    expect(parseUploadOptions({ multichannel: ' TRUE ' }).multichannel).toBe(true);
    for (const value of ['yes', '1', '2', '{}']) {
      expect(fieldErrors(() => parseUploadOptions({ multichannel: value }))).toEqual({
        multichannel: ['multichannel must be true or false'],
      });
    }
  });

  it('recognises the probed channels one by one, a mono file as one, and refuses more than 8', () => {
    expect(recognisedChannels(false, 2)).toBeNull();
    expect(recognisedChannels(false, 12)).toBeNull();
    expect(recognisedChannels(true, 1)).toBe(1);
    expect(recognisedChannels(true, MAX_CHANNELS)).toBe(8);
    expect(fieldErrors(() => recognisedChannels(true, 9))).toEqual({
      multichannel: ['multichannel takes at most 8 channels; the audio has 9'],
    });
    expect(Object.keys(fieldErrors(() => recognisedChannels(true, null)))).toEqual(['multichannel']);
  });
});
