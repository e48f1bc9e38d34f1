import { ProblemException } from '../common/problem/problem.exception';
import { readDeepgramCallback, readDeepgramListenRequest, toTier } from './deepgram-listen-request';

const refusal = (fields: Record<string, string>): string => {
  try {
    readDeepgramListenRequest(fields);
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemException);
    const problem = error as ProblemException;
    return `${problem.slug}: ${JSON.stringify(problem.extensions.errors ?? problem.detail)}`;
  }
  throw new Error('accepted');
};

describe('readDeepgramListenRequest', () => {
  it('maps Deepgram model families to tiers, a tier name to itself, and refuses others', () => {
    expect(toTier('base-general')).toBe('standard');
    expect(toTier('enhanced-phonecall')).toBe('standard');
    expect(toTier('whisper-large')).toBe('standard');
    expect(toTier('nova')).toBe('premium');
    expect(toTier('nova-2-meeting')).toBe('premium');
    expect(toTier('nova-3')).toBe('premium_jade');
    expect(toTier('NOVA-3-medical')).toBe('premium_jade');
    expect(toTier('premium')).toBe('premium');
    expect(() => toTier('aura-2')).toThrow(/No such model: "aura-2"/);
    expect(() => toTier('novaX')).toThrow(ProblemException);
  });

  it('defaults as Deepgram does: base-general, English, nothing extra', () => {
    expect(readDeepgramListenRequest({})).toMatchObject({
      model: 'base-general',
      punctuate: false,
      diarize: false,
      utterances: false,
      utteranceSplit: 0.8,
      paragraphs: false,
      detectLanguage: false,
      options: { model: 'standard', language: 'en', multichannel: false, inlineVocabulary: [] },
    });
  });

  it('reads each honoured parameter into the job’s options', () => {
    const asked = readDeepgramListenRequest({
      model: 'nova-3',
      language: 'de-CH',
      smart_format: 'true',
      diarize_model: 'latest',
      multichannel: 'true',
      utterances: 'true',
      utt_split: '1.5',
      keywords: 'Kubernetes:2,Zurich:-1.5,plain',
      keyterm: 'speech to text',
      profanity_filter: 'true',
      redact: 'pci,numbers',
    });
    expect(asked).toMatchObject({ punctuate: true, paragraphs: true, diarize: true, utteranceSplit: 1.5 });
    expect(asked.options).toMatchObject({
      model: 'premium_jade',
      language: 'de',
      multichannel: true,
      inlineVocabulary: ['Kubernetes', 'Zurich', 'plain', 'speech to text'],
      text: {
        formatNumbers: true,
        filterProfanity: true,
        redactPii: {
          policies: ['credit_card_number', 'banking_information', 'number_sequence'],
          substitution: 'entity_name',
        },
      },
    });
    expect(readDeepgramListenRequest({ detect_language: 'true', language: 'fr' }).options.language).toBe(
      'auto',
    );
    expect(readDeepgramListenRequest({ numerals: 'true' }).options.text.formatNumbers).toBe(true);
    expect(readDeepgramListenRequest({ redact: 'false' }).options.text.redactPii).toBeNull();
  });

  it('refuses what it cannot honour, naming it, and bad values; ignores unknown parameters', () => {
    expect(refusal({ summarize: 'v2' })).toMatch(/summarize/);
    expect(refusal({ sentiment: 'true' })).toMatch(/sentiment/);
    expect(readDeepgramListenRequest({ sentiment: 'false', tag: 'x', mip_opt_out: 'true' }).model).toBe(
      'base-general',
    );
    expect(refusal({ punctuate: 'yes' })).toMatch(/punctuate must be true or false/);
    expect(refusal({ utt_split: '0' })).toMatch(/utt_split/);
    expect(refusal({ utt_split: 'soon' })).toMatch(/utt_split/);
    expect(refusal({ redact: 'everything' })).toMatch(/redact/);
    expect(refusal({ language: 'xx' })).toMatch(/language/);
  });

  it('reads callback and callback_method (POST or PUT, any case; POST by default), refusing another method', () => {
    expect(readDeepgramCallback({})).toBeNull();
    expect(readDeepgramCallback({ callback: ' ', callback_method: 'put' })).toBeNull();
    expect(readDeepgramCallback({ callback: 'https://example.com/hook' })).toEqual({
      url: 'https://example.com/hook',
      method: 'POST',
    });
    expect(readDeepgramCallback({ callback: 'https://example.com/hook', callback_method: 'put' })).toEqual({
      url: 'https://example.com/hook',
      method: 'PUT',
    });
    expect(() =>
      readDeepgramCallback({ callback: 'https://example.com/hook', callback_method: 'GET' }),
    ).toThrow(/callback_method must be POST or PUT/);
    // The callback is no longer refused by the synchronous reading.
    expect(readDeepgramListenRequest({ callback: 'https://example.com/hook' }).model).toBe('base-general');
  });
});
