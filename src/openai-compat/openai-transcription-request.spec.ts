import { OpenAiApiError } from './openai-error';
import { readOpenAiTranscriptionRequest, toTier } from './openai-transcription-request';

const refusal = (fields: Record<string, string>): OpenAiApiError => {
  try {
    readOpenAiTranscriptionRequest(fields);
  } catch (error) {
    if (error instanceof OpenAiApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('readOpenAiTranscriptionRequest', () => {
  it('maps whisper-1 (and no model) to standard and tier names to themselves; refuses other models', () => {
    expect(toTier('whisper-1')).toBe('standard');
    expect(toTier(undefined)).toBe('standard');
    expect(toTier('premium_jade')).toBe('premium_jade');
    expect(refusal({ model: 'gpt-4o-transcribe' })).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      code: 'model_not_found',
      param: 'model',
    });
  });

  it('defaults to json with segments; reads the SDK’s repeated and the plain granularity fields', () => {
    expect(readOpenAiTranscriptionRequest({ model: 'whisper-1' })).toMatchObject({
      responseFormat: 'json',
      words: false,
      segments: true,
      options: { model: 'standard', language: 'auto' },
    });
    expect(
      readOpenAiTranscriptionRequest({
        'timestamp_granularities[]': 'word',
        response_format: 'verbose_json',
      }),
    ).toMatchObject({ responseFormat: 'verbose_json', words: true, segments: false });
    expect(readOpenAiTranscriptionRequest({ 'timestamp_granularities[]': 'word,segment' })).toMatchObject({
      words: true,
      segments: true,
    });
    expect(readOpenAiTranscriptionRequest({ timestamp_granularities: '["segment","word"]' })).toMatchObject({
      words: true,
      segments: true,
    });
  });

  it('keeps prompt for the job, ignores temperature and unknown OpenAI fields; passes language on', () => {
    expect(
      readOpenAiTranscriptionRequest({
        prompt: 'Quarterly review with Kubernetes and gRPC.',
        temperature: '0.3',
        include: 'logprobs',
        language: 'EN',
      }),
    ).toMatchObject({ options: { language: 'en', prompt: 'Quarterly review with Kubernetes and gRPC.' } });
    expect(readOpenAiTranscriptionRequest({}).options.prompt).toBeNull();
    expect(readOpenAiTranscriptionRequest({ prompt: '  ' }).options.prompt).toBeNull();
    expect(readOpenAiTranscriptionRequest({ prompt: 'é'.repeat(4000) }).options.prompt).toHaveLength(4000);
  });

  it('refuses a prompt over 4000 characters or one that cannot be stored, naming it', () => {
    expect(refusal({ prompt: 'a'.repeat(4001) })).toMatchObject({ status: 400, param: 'prompt' });
    expect(refusal({ prompt: 'a\u0000b' })).toMatchObject({ status: 400, param: 'prompt' });
  });

  it('refuses an unknown response_format, granularity, stream=true and language, naming the field', () => {
    expect(refusal({ response_format: 'docx' })).toMatchObject({ status: 400, param: 'response_format' });
    expect(refusal({ 'timestamp_granularities[]': 'char' })).toMatchObject({
      param: 'timestamp_granularities',
    });
    expect(refusal({ stream: 'true' })).toMatchObject({ param: 'stream' });
    expect(() => readOpenAiTranscriptionRequest({ language: 'klingon' })).toThrow(/language/);
  });
});
