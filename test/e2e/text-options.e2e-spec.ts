import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { strFromU8, unzipSync } from 'fflate';
import { DataSource } from 'typeorm';
import { FileStorage } from '../../src/storage/file-storage';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { asBuffer, upload, waitForTerminal } from '../support/transcriptions';

// PocketSphinx: "The expression goes six times ten equals sixty not six hundred thousand that gives us a
// twelve percent chance." (16 kHz mono WAV, 6.8 s)
const NUMBERS = testAudio('picovoice-cheetah/test_en_norm.wav');
const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // "Go forward ten meters."

const problem = (slug: string) => `https://errors.transcription.example/problems/${slug}`;

interface Word {
  word: string;
  start: number;
  end: number;
}

/** 16 kHz mono samples of an audio file's bytes, decoded by ffmpeg. */
function decodeSamples(bytes: Buffer): Int16Array {
  const pcm = execFileSync(
    'ffmpeg',
    ['-nostdin', '-v', 'error', '-i', 'pipe:0', '-f', 's16le', '-ac', '1', '-ar', '16000', 'pipe:1'],
    {
      input: bytes,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
}

function rms(samples: Int16Array, fromSeconds: number, toSeconds: number): number {
  const window = samples.subarray(Math.round(fromSeconds * 16000), Math.round(toSeconds * 16000));
  return Math.sqrt(window.reduce((sum, sample) => sum + sample * sample, 0) / Math.max(1, window.length));
}

/**
 * The text options of an upload through HTTP on real clips: number formatting (the tier's default and off),
 * custom spelling before the profanity filter, PII redaction of text, exports and audio, and the refusals.
 */

/** The redacted entity as a number or as words; ids (UUIDs such as `c416006b-…`) may hold the digits. */
const SIX_HUNDRED = /\b600\b|six hundred/i;
const withoutIds = (text: string) =>
  text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>');

describe('Transcript text options', () => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ apiKey } = await t.createWorkspace({ name: 'Text options', balanceEur: 5, freeTranscriptions: 0 }));
  });
  afterAll(() => t.close());

  async function transcribe(file: string, fields: Record<string, string>) {
    const created = await upload(t, apiKey, file, fields);
    expect(created.status).toBe(202);
    const done = await waitForTerminal(t, apiKey, created.body.data.id as string, 90_000);
    expect(done.status).toBe('completed');
    return done.body.data as unknown as Record<string, unknown> & {
      id: string;
      resultText: string;
      resultJson: { words: Word[] };
    };
  }

  const download = (path: string) => t.http().get(path).set(bearer(apiKey)).buffer(true).parse(asBuffer);

  async function exportText(id: string, format: string): Promise<string> {
    const response = await download(`/v1/transcriptions/${id}/export?format=${format}`);
    expect(response.status).toBe(200);
    const raw = response.body as Buffer;
    return format === 'docx'
      ? strFromU8(unzipSync(new Uint8Array(raw))['word/document.xml'])
      : raw.toString('utf8');
  }

  let spelledOut: Awaited<ReturnType<typeof transcribe>>;

  it('writes numbers as digits by default on a PocketSphinx tier, timing merged words over their span', async () => {
    let formatted: typeof spelledOut;
    [spelledOut, formatted] = await Promise.all([
      transcribe(NUMBERS, { format_numbers: 'false' }),
      transcribe(NUMBERS, {}),
    ]);
    expect(spelledOut.formatNumbers).toBe(false);
    expect(spelledOut.resultText).toContain('twelve percent chance');
    expect(formatted.formatNumbers).toBe(true);
    expect(formatted.resultText).toContain('600,000');
    expect(formatted.resultText).toContain('12% chance');
    const source = spelledOut.resultJson.words;
    const twelve = source.findIndex((word) => word.word === 'twelve');
    const merged = formatted.resultJson.words.find((word) => word.word === '12%');
    expect(merged).toMatchObject({ start: source[twelve].start, end: source[twelve + 1].end });
    expect(await exportText(formatted.id, 'srt')).toContain('12%');
  }, 180_000);

  it('applies custom spelling before the profanity filter', async () => {
    const done = await transcribe(GO_FORWARD, {
      custom_spelling: JSON.stringify([
        { from: ['Go Forward'], to: 'Advance' },
        { from: ['meters'], to: 'shit' },
      ]),
      filter_profanity: 'true',
    });
    expect(done.resultText).toBe('Advance 10 s***.');
    expect(done.customSpelling).toEqual([
      { from: ['Go Forward'], to: 'Advance' },
      { from: ['meters'], to: 'shit' },
    ]);
    expect(done.filterProfanity).toBe(true);
  }, 120_000);

  it('redacts PII from the text, every export, the stored row and the audio', async () => {
    const done = await transcribe(NUMBERS, {
      redact_pii: 'true',
      redact_pii_policies: JSON.stringify(['number_sequence', 'phone_number']),
      redact_pii_audio: 'true',
    });
    expect(done).toMatchObject({
      redactPii: true,
      redactPiiPolicies: ['number_sequence', 'phone_number'],
      redactPiiSub: 'entity_name',
      redactPiiAudio: true,
      mimeType: 'audio/flac',
    });
    expect(done.resultText).toContain('not [NUMBER_SEQUENCE] that');
    const marker = done.resultJson.words.find((word) => word.word === '[NUMBER_SEQUENCE]')!;
    const source = spelledOut.resultJson.words;
    const six = source.findIndex(
      (word, index) => word.word === 'six' && source[index + 1]?.word === 'hundred',
    );
    expect(marker).toMatchObject({ start: source[six].start, end: source[six + 2].end });
    for (const format of ['txt', 'srt', 'vtt', 'json', 'docx']) {
      const text = await exportText(done.id, format);
      expect(text).toContain('NUMBER_SEQUENCE');
      expect(withoutIds(text)).not.toMatch(SIX_HUNDRED);
    }
    const database = t.app.get(DataSource);
    const [row] = await database.query<Array<{ json: string; storage_key: string }>>(
      `SELECT row_to_json(t)::text AS json, storage_key FROM transcriptions t WHERE id = $1`,
      [done.id],
    );
    expect(withoutIds(row.json)).not.toMatch(SIX_HUNDRED);

    const served = await download(`/v1/transcriptions/${done.id}/audio`);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('audio/flac');
    const redacted = decodeSamples(served.body as Buffer);
    const original = decodeSamples(readFileSync(NUMBERS));
    expect(rms(original, marker.start, marker.end)).toBeGreaterThan(300);
    expect(rms(redacted, marker.start, marker.end)).toBe(0);
    // Outside the span (and its margin) the audio is the upload's, sample for sample.
    for (const [from, to] of [
      [0, marker.start - 0.2],
      [marker.end + 0.2, 6.5],
    ]) {
      const first = Math.round(from * 16000);
      const difference = Int16Array.from(
        original.subarray(first, Math.round(to * 16000)),
        (sample, index) => sample - redacted[first + index],
      );
      expect(rms(difference, 0, to - from)).toBeLessThan(1);
    }
    // The unredacted upload is gone from the store.
    await expect(
      t.app.get(FileStorage).size(row.storage_key.replace(/\.redacted\.flac$/, '')),
    ).rejects.toThrow();
  }, 120_000);

  it.each([
    ['redact_pii_policies', { redact_pii_policies: '["phone_number"]' }],
    ['redact_pii_policies', { redact_pii: 'true' }],
    ['redact_pii_policies', { redact_pii: 'true', redact_pii_policies: '["phone_number","passport"]' }],
    ['redact_pii_policies', { redact_pii: 'true', redact_pii_policies: '[]' }],
    ['redact_pii_sub', { redact_pii: 'true', redact_pii_policies: 'phone_number', redact_pii_sub: 'stars' }],
    ['redact_pii_sub', { redact_pii_sub: 'hash' }],
    ['redact_pii_audio', { redact_pii_audio: 'true' }],
    ['redact_pii', { redact_pii: 'yes' }],
    ['format_numbers', { format_numbers: 'maybe' }],
    ['filter_profanity', { filter_profanity: '1' }],
    ['custom_spelling', { custom_spelling: '{"from":["a"],"to":"b"}' }],
    ['custom_spelling', { custom_spelling: '[{"from":[],"to":"b"}]' }],
    ['custom_spelling', { custom_spelling: '[{"from":["a"],"to":""}]' }],
    ['custom_spelling', { custom_spelling: `[{"from":["a"],"to":"${'b'.repeat(65)}"}]` }],
    ['custom_spelling', { custom_spelling: '[{"from":["a"],"to":"b","case":"x"}]' }],
    [
      'custom_spelling',
      { custom_spelling: JSON.stringify(Array.from({ length: 101 }, () => ({ from: ['a'], to: 'b' }))) },
    ],
  ])('422 validation on %s for %j', async (field, fields) => {
    const response = await upload(t, apiKey, GO_FORWARD, fields);
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(problem('validation'));
    expect(Object.keys(response.body.errors.fieldErrors)).toEqual([field]);
  });

  it('takes the options as JSON values in the audio_url body, and refuses them there the same way', async () => {
    const response = await t
      .http()
      .post('/v1/transcriptions')
      .set(bearer(apiKey))
      .send({
        audio_url: 'https://example.invalid/a.wav',
        redact_pii: true,
        redact_pii_policies: ['phone_number', 'ssn'],
      });
    expectMatchesSpec(response, 'createTranscription');
    expect(response.status).toBe(422);
    expect(response.body.errors.fieldErrors.redact_pii_policies[0]).toContain('"ssn"');
  });

  it('formats numbers on the OpenAI-compatible route too (the tier default)', async () => {
    const response = await t
      .http()
      .post('/v1/audio/transcriptions')
      .set(bearer(apiKey))
      .field('model', 'whisper-1')
      .field('response_format', 'text')
      .attach('file', GO_FORWARD);
    expectMatchesSpec(response, 'createOpenAiTranscription');
    expect(response.status).toBe(200);
    expect(response.text.trim()).toBe('Go forward 10 meters.');
  }, 120_000);
});
