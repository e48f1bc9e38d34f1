import { describe, expect, it } from 'vitest';
import { curlCommand, openAiCode, PlaygroundRequest, shellWord, typedClientCode } from './request-code';

const fileUpload: PlaygroundRequest = {
  baseUrl: 'http://127.0.0.1:3000',
  source: { file: "Bob's meeting.wav" },
  fields: {
    model: 'premium',
    language: 'de',
    vocabulary: 'Kubernetes, gRPC',
    num_speakers: '2',
    metadata: '{"ticket":"T-1"}',
  },
};
const urlUpload: PlaygroundRequest = {
  baseUrl: 'http://127.0.0.1:3000',
  source: { audioUrl: 'https://example.org/a.mp3?x=1&y=2' },
  fields: { model: 'standard', language: 'auto' },
};

describe('shellWord', () => {
  it('leaves plain words alone and single-quotes the rest, quotes included', () => {
    expect(shellWord('model=premium')).toBe('model=premium');
    expect(shellWord('a b')).toBe("'a b'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord('$KEY')).toBe("'$KEY'");
  });
});

describe('curlCommand', () => {
  it('posts the file and every field as sent, values as text (--form-string), the key from $KEY', () => {
    expect(curlCommand(fileUpload)).toBe(
      [
        'curl -X POST http://127.0.0.1:3000/v1/transcriptions',
        '-H "Authorization: Bearer $KEY"',
        "-F 'file=@Bob'\\''s meeting.wav'",
        '--form-string model=premium',
        '--form-string language=de',
        "--form-string 'vocabulary=Kubernetes, gRPC'",
        '--form-string num_speakers=2',
        `--form-string 'metadata={"ticket":"T-1"}'`,
      ].join(' \\\n  '),
    );
  });
  it('sends audio_url instead of a file', () => {
    expect(curlCommand(urlUpload)).toContain("--form-string 'audio_url=https://example.org/a.mp3?x=1&y=2'");
    expect(curlCommand(urlUpload)).not.toContain('file=@');
  });
});

describe('typedClientCode', () => {
  it('uploads the path with typed fields (speaker counts as numbers) and the metadata object, then waits', () => {
    const code = typedClientCode(fileUpload);
    expect(code).toContain("import { TranscriptionClient } from './clients/typescript/src';");
    expect(code).toContain(
      'const job = await client.upload({ path: "Bob\'s meeting.wav" }, { fields: { model: "premium", language: "de", vocabulary: "Kubernetes, gRPC", num_speakers: 2 }, metadata: {"ticket":"T-1"} });',
    );
    expect(code).toContain('await client.waitForCompletion(job.id)');
  });
  it('posts a URL job with fetch and follows it with the client', () => {
    const code = typedClientCode(urlUpload);
    expect(code).toContain(`form.append('audio_url', "https://example.org/a.mp3?x=1&y=2");`);
    expect(code).toContain('form.append("model", "standard");');
    expect(code).toContain('await client.waitForCompletion(job.id)');
  });
});

describe('openAiCode', () => {
  it('sends model and language, and names the fields the OpenAI route does not read', () => {
    const code = openAiCode(fileUpload);
    expect(code).toContain('file: fs.createReadStream("Bob\'s meeting.wav"),');
    expect(code).toContain('model: "premium",');
    expect(code).toContain('language: "de",');
    expect(code).toContain('use POST /v1/transcriptions for them): vocabulary, num_speakers, metadata');
  });
  it('leaves out language auto and fetches a URL into a file', () => {
    const code = openAiCode(urlUpload);
    expect(code).not.toContain('language:');
    expect(code).toContain(`file: await toFile(await fetch("https://example.org/a.mp3?x=1&y=2"), 'audio'),`);
    expect(code).not.toContain('Not read by');
  });
});
