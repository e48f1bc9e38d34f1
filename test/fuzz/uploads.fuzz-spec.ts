/**
 * Multipart fuzzing of createTranscription on an API-only app (no worker, so no engine job runs): file parts
 * present, missing, doubled, empty or not audio; path-traversal, unicode and control characters in file names;
 * text fields of the wrong type, huge or unknown; odd Idempotency-Keys; broken multipart envelopes.
 * Invariants as in operations.fuzz-spec.ts; an accepted upload writes exactly one row and one file, and a
 * rejected one nothing. Reproduce with FUZZ_SEED / FUZZ_PATH.
 */
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import type { ProvisionedWorkspace } from '../../src/auth/provisioning/workspace-provisioning.service';
import { parseIdempotencyKey } from '../../src/transcriptions/idempotency.service';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { generatedAudio } from '../support/transcriptions';
import {
  expectInvariants,
  expectNothingWritten,
  fuzzParameters,
  nastyString,
  privateStorageDir,
  slugOf,
  settledWrittenState,
  writtenState,
} from './fuzz-support';

const RUNS = 80;

interface FilePart {
  field: string;
  content: 'audio' | 'empty' | 'text' | 'random';
  name: string;
  contentType: string;
}

interface Upload {
  files: FilePart[];
  fields: Array<[string, string]>;
  idempotencyKey: string | null;
  envelope: 'normal' | 'truncated' | 'no-boundary' | 'garbage';
}

const fieldValue = fc.oneof(
  fc.constantFrom(
    'standard',
    'premium',
    'premium_jade',
    'auto',
    'en',
    'de',
    '1',
    '2',
    '50',
    '0',
    '51',
    '-1',
    '1.5',
  ),
  fc.constantFrom(
    '["Kubernetes","Grüezi"]',
    '[1,2]',
    '[',
    '{"a":1}',
    'a,b,,c',
    'x\u0000y',
    '[""]',
    // NUL and lone surrogates (PostgreSQL refuses both) reaching the vocabulary through JSON escapes.
    '["be\\u0000ta"]',
    '["\\ud800"]',
    // The caller's metadata objects, fine and refused.
    '{"customer":"acme"}',
    '{"k":"\\ud800"}',
    '{"":"v"}',
    '{"n":null}',
  ),
  nastyString,
  fc.uuid(),
);

const uploadArbitrary: fc.Arbitrary<Upload> = fc.record({
  files: fc.array(
    fc.record({
      field: fc.constantFrom('file', 'file', 'file', 'File', 'upload', 'file[]'),
      content: fc.constantFrom<FilePart['content']>('audio', 'audio', 'audio', 'empty', 'text', 'random'),
      name: fc.oneof(
        fc.constantFrom(
          'clip.wav',
          '../../etc/passwd',
          '..\\..\\windows\\win.ini',
          '/absolute/path/clip.wav',
          'Grüezi Säntis 🎙️.wav',
          'a\r\nContent-Type: text/html.wav',
          '"quoted".wav',
          '.',
          '',
          '%2e%2e%2fclip.wav',
        ),
        nastyString.map((name) => name.slice(0, 300)),
      ),
      contentType: fc.constantFrom('audio/wav', 'application/octet-stream', 'text/plain', 'video/mp4', ''),
    }),
    { minLength: 0, maxLength: 2 },
  ),
  fields: fc.array(
    fc.tuple(
      fc.constantFrom(
        'model',
        'language',
        'vocabulary',
        'vocabulary_id',
        'vocabularyId',
        'num_speakers',
        'min_speakers',
        'max_speakers',
        'metadata',
        'unknown',
        'model',
      ),
      fieldValue,
    ),
    { maxLength: 4 },
  ),
  idempotencyKey: fc.option(fc.oneof(fc.uuid(), fc.constantFrom('nope', '', ' ', 'x'.repeat(200))), {
    freq: 3,
  }),
  envelope: fc.constantFrom<Upload['envelope']>(
    'normal',
    'normal',
    'normal',
    'normal',
    'truncated',
    'no-boundary',
    'garbage',
  ),
});

describe('Multipart fuzzing of createTranscription', () => {
  let t: TestApp;
  let storage: ReturnType<typeof privateStorageDir>;
  let workspace: ProvisionedWorkspace;
  let audio: Buffer;

  beforeAll(async () => {
    storage = privateStorageDir();
    t = await startTestApp({ ROLE: 'api', STORAGE_DIR: storage.dir });
    workspace = await t.createWorkspace({ name: 'Upload fuzz', balanceEur: 100, freeTranscriptions: 0 });
    audio = readFileSync(
      generatedAudio('tone.wav', [
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=440:duration=1',
        '-ar',
        '16000',
        '-ac',
        '1',
      ]),
    );
  });
  afterAll(async () => {
    await t.close();
    storage.remove();
  });

  function contentOf(part: FilePart, seed: number): Buffer {
    switch (part.content) {
      case 'audio':
        return audio;
      case 'empty':
        return Buffer.alloc(0);
      case 'text':
        return Buffer.from('this is not audio\n'.repeat(20));
      case 'random':
        return Buffer.from(Array.from({ length: 2048 }, (_, index) => (index * 31 + seed) % 256));
    }
  }

  /** A raw multipart body built by hand, so truncated and broken envelopes can be sent too. */
  function multipartBody(upload: Upload, boundary: string): Buffer {
    const chunks: Buffer[] = [];
    const header = (text: string) => chunks.push(Buffer.from(text, 'utf8'));
    for (const [name, value] of upload.fields) {
      header(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
    }
    upload.files.forEach((part, index) => {
      const type = part.contentType ? `\r\nContent-Type: ${part.contentType}` : '';
      const name = part.name.replace(/["\r\n]/g, (character) => encodeURIComponent(character));
      header(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.field}"; filename="${name}"${type}\r\n\r\n`,
      );
      chunks.push(contentOf(part, index));
      header('\r\n');
    });
    header(`--${boundary}--\r\n`);
    const body = Buffer.concat(chunks);
    return upload.envelope === 'truncated'
      ? body.subarray(0, Math.max(1, Math.floor(body.length * 0.7)))
      : body;
  }

  it(`${RUNS} generated uploads keep every invariant`, async () => {
    await fc.assert(
      fc.asyncProperty(uploadArbitrary, async (upload) => {
        const boundary = `----fuzz${randomUUID()}`;
        const before = await settledWrittenState(t, workspace.workspaceId, storage.dir);
        let call = t.http().post('/v1/transcriptions').set(bearer(workspace.apiKey));
        if (upload.idempotencyKey !== null) call = call.set('Idempotency-Key', upload.idempotencyKey);
        const body =
          upload.envelope === 'garbage'
            ? Buffer.from('--not-a-boundary\r\n\r\nnonsense')
            : multipartBody(upload, boundary);
        call = call.set(
          'Content-Type',
          upload.envelope === 'no-boundary'
            ? 'multipart/form-data'
            : `multipart/form-data; boundary=${boundary}`,
        );
        const response = await call.send(body).timeout(30_000);
        const sent = {
          method: 'POST',
          path: '/v1/transcriptions',
          note: JSON.stringify({
            ...upload,
            files: upload.files.map((file) => ({ ...file, name: file.name.slice(0, 40) })),
          }).slice(0, 600),
        };
        expectInvariants(response, 'createTranscription', sent);
        if (response.status >= 300) {
          await expectNothingWritten(t, workspace.workspaceId, storage.dir, before, sent);
        } else {
          const after = await writtenState(t, workspace.workspaceId, storage.dir);
          const replay = upload.idempotencyKey !== null && after.transcriptions === before.transcriptions;
          if (!replay) {
            expect({
              sent,
              rows: after.transcriptions - before.transcriptions,
              files: after.storedFiles - before.storedFiles,
            }).toEqual({
              sent,
              rows: 1,
              files: 1,
            });
          }
          // The stored name is a base name: no directories, no control characters.
          const name = response.body.data.originalFileName as string;
          const clean = ![...name].some(
            (character) => '/\\'.includes(character) || character.charCodeAt(0) < 0x20,
          );
          expect({ name, clean }).toEqual({ name, clean: true });
        }
        // Refusals the contract names for each kind of fault.
        const fileParts = upload.files.filter((part) => part.field === 'file');
        if (upload.envelope === 'normal' && upload.files.length === 0) {
          // A malformed Idempotency-Key is refused before the body is read (so a large body is never streamed).
          const expected = keyIsMalformed(upload.idempotencyKey) ? 'invalid-idempotency-key' : 'missing-file';
          expect({ sent, slug: slugOf(response) }).toEqual({ sent, slug: expected });
        }
        if (
          upload.envelope === 'normal' &&
          fileParts[0] &&
          fileParts[0].content !== 'audio' &&
          response.status < 300
        ) {
          throw new Error(`${sent.note}: a non-audio file was accepted`);
        }
      }),
      fuzzParameters(RUNS),
    );
  });

  it('keeps the stored file inside the storage folder whatever the client called it', async () => {
    const response = await t
      .http()
      .post('/v1/transcriptions')
      .set(bearer(workspace.apiKey))
      .attach('file', audio, { filename: '../../../../tmp/owned.wav', contentType: 'audio/wav' });
    expect(response.status).toBe(202);
    expect(response.body.data.originalFileName).toBe('owned.wav');
    const [row] = await t.app
      .get(DataSource)
      .query<Array<{ storage_key: string }>>('SELECT storage_key FROM transcriptions WHERE id = $1', [
        response.body.data.id,
      ]);
    expect(row.storage_key).toMatch(/^uploads\/\d{4}-\d{2}-\d{2}\/[0-9a-f-]{36}$/);
  });
});

function keyIsMalformed(key: string | null): boolean {
  try {
    parseIdempotencyKey(key ?? undefined);
    return false;
  } catch {
    return true;
  }
}
