import { ProblemException } from '../common/problem/problem.exception';
import { readAssemblyAiTranscriptRequest, readAssemblyAiWebhook } from './assemblyai-transcript-request';

const URL = 'https://example.com/call.wav';
const refusal = (fields: Record<string, string>): string => {
  try {
    readAssemblyAiTranscriptRequest(fields, URL);
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemException);
    const problem = error as ProblemException;
    return `${problem.detail} ${JSON.stringify(problem.extensions.errors ?? '')}`;
  }
  throw new Error('accepted');
};

describe('readAssemblyAiTranscriptRequest', () => {
  it('AssemblyAI defaults: English, punctuated and formatted text, the standard tier', () => {
    const { options, asked } = readAssemblyAiTranscriptRequest({}, URL);
    expect(asked).toMatchObject({
      speech_model: null,
      language_code: 'en_us',
      punctuate: true,
      format_text: true,
    });
    expect(options).toMatchObject({ model: 'standard', language: 'en', multichannel: false });
    expect(options.compatRequest).toEqual({ api: 'assemblyai', audioUrl: URL, options: asked });
  });

  it('maps each honoured field to the job’s options', () => {
    const { options, asked } = readAssemblyAiTranscriptRequest(
      {
        speech_model: 'best',
        language_code: 'de',
        speakers_expected: '2',
        word_boost: '["Kubernetes","Zurich"]',
        boost_param: 'high',
        filter_profanity: 'true',
        format_text: 'false',
        redact_pii: 'true',
        redact_pii_policies: '["phone_number"]',
        custom_spelling: '[{"from":["gonna"],"to":"going to"}]',
      },
      URL,
    );
    expect(asked).toMatchObject({ speaker_labels: true, speakers_expected: 2, redact_pii_sub: 'hash' });
    expect(asked.custom_spelling).toEqual([{ from: ['gonna'], to: 'going to' }]);
    expect(options).toMatchObject({
      model: 'premium',
      language: 'de',
      inlineVocabulary: ['Kubernetes', 'Zurich'],
      speakers: { exact: 2 },
      text: {
        filterProfanity: true,
        formatNumbers: false,
        redactPii: { policies: ['phone_number'], substitution: 'hash', audio: false },
      },
    });
    expect(readAssemblyAiTranscriptRequest({ speech_model: 'nano' }, URL).options.model).toBe('standard');
    expect(readAssemblyAiTranscriptRequest({ speech_model: 'slam-1' }, URL).options.model).toBe(
      'premium_jade',
    );
    expect(readAssemblyAiTranscriptRequest({ speech_models: '["universal"]' }, URL).options.model).toBe(
      'premium',
    );
    expect(readAssemblyAiTranscriptRequest({ language_detection: 'true' }, URL).options.language).toBe(
      'auto',
    );
  });

  it('refuses what it cannot honour, naming it, and bad values', () => {
    expect(refusal({ summarization: 'true' })).toMatch(/summarization/);
    expect(refusal({ audio_start_from: '1000' })).toMatch(/audio_start_from/);
    expect(
      readAssemblyAiTranscriptRequest({ summarization: 'false', auto_chapters: 'null' }, URL).asked.punctuate,
    ).toBe(true);
    expect(refusal({ speech_model: 'whisper' })).toMatch(/speech_model must be one of/);
    expect(refusal({ punctuate: 'yes' })).toMatch(/punctuate must be true or false/);
    expect(refusal({ speakers_expected: '0' })).toMatch(/speakers_expected/);
    expect(refusal({ word_boost: '"one"' })).toMatch(/word_boost must be an array/);
    expect(refusal({ boost_param: 'max' })).toMatch(/boost_param/);
    expect(refusal({ redact_pii: 'true', redact_pii_sub: 'stars' })).toMatch(/redact_pii_sub/);
    expect(refusal({ custom_spelling: '{' })).toMatch(/custom_spelling/);
  });

  it('reads webhook_url with its auth header pair (both or neither), keeping the value as sent', () => {
    expect(readAssemblyAiWebhook({})).toBeNull();
    expect(readAssemblyAiWebhook({ webhook_url: 'null' })).toBeNull();
    expect(readAssemblyAiWebhook({ webhook_url: 'https://example.com/hook' })).toEqual({
      url: 'https://example.com/hook',
      authHeader: null,
    });
    expect(
      readAssemblyAiWebhook({
        webhook_url: 'https://example.com/hook',
        webhook_auth_header_name: 'X-Hook-Secret',
        webhook_auth_header_value: 'a secret ',
      }),
    ).toEqual({ url: 'https://example.com/hook', authHeader: { name: 'X-Hook-Secret', value: 'a secret ' } });
    const refused = (fields: Record<string, string>): string => {
      try {
        readAssemblyAiWebhook(fields);
      } catch (error) {
        return JSON.stringify((error as ProblemException).extensions.errors);
      }
      throw new Error('accepted');
    };
    expect(
      refused({ webhook_url: 'https://example.com/hook', webhook_auth_header_name: 'X-Hook-Secret' }),
    ).toMatch(/webhook_auth_header_value/);
    expect(refused({ webhook_url: 'https://example.com/hook', webhook_auth_header_value: 'v' })).toMatch(
      /webhook_auth_header_name/,
    );
    expect(refused({ webhook_auth_header_name: 'X', webhook_auth_header_value: 'v' })).toMatch(/webhook_url/);
    // The webhook is no longer refused by the request's reading.
    expect(
      readAssemblyAiTranscriptRequest({ webhook_url: 'https://example.com/hook' }, URL).asked.punctuate,
    ).toBe(true);
  });
});
