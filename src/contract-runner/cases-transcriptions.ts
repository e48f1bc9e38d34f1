import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkEventFrame } from '../openapi/openapi-contract';
import { parseEventStream, readStream } from './event-stream';
import { toExchange, type Exchange } from './http-client';
import type { CaseScope, RunContext } from './run-context';
import type { RunState } from './run-state';
import { expectVerifiedDelivery, waitForDelivery } from './cases-webhooks';

/** The clip every run uploads (2.8 s of speech; see fixtures/README.md). */
export const FIXTURE_CLIP = join(__dirname, 'fixtures', 'go-forward.wav');

const EXPORT_TYPES: Record<string, string> = {
  txt: 'text/plain',
  srt: 'text/srt',
  vtt: 'text/vtt',
  json: 'application/json',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};
const TERMINAL = new Set(['completed', 'failed']);
const TERMINAL_FRAME_ID = '102';

/** A WAV of `seconds` of silence (16 kHz mono s16le): shorter than a second, a job that ends `failed`, unbilled. */
export function silentWav(seconds: number): Buffer {
  const samples = Math.round(16_000 * seconds);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

export function uploadForm(file: Buffer, name: string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [field, value] of Object.entries(fields)) form.append(field, value);
  form.append('file', new Blob([file], { type: 'audio/wav' }), name);
  return form;
}

/** Polls getTranscriptionStatus until the job is terminal; every answer is checked. */
async function pollUntilTerminal(run: RunContext, s: CaseScope, id: string): Promise<string> {
  const deadline = Date.now() + run.options.jobTimeoutSeconds * 1000;
  for (;;) {
    const answer = await s.call('getTranscriptionStatus', { credential: s.credential('key'), path: { id } });
    s.expect(answer, 200);
    const status = (answer.body as { data: { status: string } }).data.status;
    if (TERMINAL.has(status)) return status;
    if (Date.now() > deadline)
      return s.fail(
        `transcription ${id} still ${status} after --job-timeout ${run.options.jobTimeoutSeconds} s`,
      );
    await sleep(1000, undefined, { signal: run.abort.signal });
  }
}

/** Opens the event stream and reads it to its end; checks the answer, every frame and the ids. */
async function followEvents(run: RunContext, s: CaseScope, id: string): Promise<string | undefined> {
  const response = await run.client.open('streamTranscriptionEvents', {
    credential: s.credential('key'),
    path: { id },
    signal: AbortSignal.any([run.abort.signal, AbortSignal.timeout(run.options.jobTimeoutSeconds * 1000)]),
  });
  const text = await readStream(response.body);
  const exchange = toExchange(
    'streamTranscriptionEvents',
    'GET',
    run.client.url('streamTranscriptionEvents', { path: { id } }),
    response,
    Buffer.from(text),
  );
  run.check(exchange, s.failures);
  s.expect(exchange, 200);
  const blocks = parseEventStream(text);
  s.check(blocks[0]?.retry !== undefined, 'the stream does not open with a retry: hint');
  const frames = blocks.filter((block) => block.data.length > 0 && block.event === undefined);
  let lastId = -1;
  let lastStatus: string | undefined;
  for (const frame of frames) {
    let payload: unknown;
    try {
      payload = JSON.parse(frame.data.join('\n'));
    } catch {
      s.check(false, `frame ${frame.id}: data is not JSON: ${frame.data.join('\n')}`);
      continue;
    }
    for (const finding of checkEventFrame(payload))
      s.check(false, `frame ${frame.id}: ${finding.path}: ${finding.message}`);
    const frameId = Number(frame.id);
    s.check(
      Number.isInteger(frameId) && frameId >= lastId,
      `frame ids must grow: ${frame.id} after ${lastId}`,
    );
    lastId = frameId;
    lastStatus = (payload as { status?: string }).status;
  }
  s.check(frames.length > 0, 'the stream carried no frame');
  s.check(
    lastId === 102,
    `the stream did not end with the terminal frame (id ${TERMINAL_FRAME_ID}); last id ${lastId}`,
  );
  return lastStatus;
}

/** The transcription chain: upload (with the vocabulary), SSE + status, read, list, audio, every export, delete. */
export async function transcriptionCases(run: RunContext, state: RunState): Promise<void> {
  const { mode, noJobs } = run.options;
  const key = (s: CaseScope) => s.credential('key');
  const clip = readFileSync(FIXTURE_CLIP);
  const name = `${state.tag}.wav`;

  await run.case('createTranscription', 'refuses bad uploads before any job exists', async (s) => {
    const notAudio = new FormData();
    notAudio.append('file', new Blob(['just some text, not audio\n'], { type: 'audio/wav' }), name);
    // The service refuses a bad field as soon as it reads it and closes the connection (`Connection: close`)
    // without reading the rest: a body small enough to be sent in one write is never cut off mid-send.
    const small = silentWav(0.05);
    await s.expectRefusals('createTranscription', key(s), [
      [{ form: new FormData() }, 400, 'missing-file'],
      [{ raw: { body: 'x', contentType: 'text/plain' } }, 415, 'unsupported-media-type'],
      [{ form: uploadForm(small, name, { model: 'ultra' }) }, 422, 'invalid-model'],
      [{ form: uploadForm(small, name, { num_speakers: '0' }) }, 422, 'invalid-speaker-hint'],
      [{ form: uploadForm(small, name, { language: 'xx' }) }, 422, 'validation'],
      [
        { form: uploadForm(small, name), headers: { 'idempotency-key': 'not-a-uuid' } },
        422,
        'invalid-idempotency-key',
      ],
      [{ form: notAudio }, 422, 'unsupported-format'],
    ]);
  });

  const jobOperations = [
    'getTranscription',
    'getTranscriptionStatus',
    'streamTranscriptionEvents',
    'getTranscriptionAudio',
    'exportTranscription',
    'searchTranscript',
    'updateTranscription',
    'deleteTranscription',
  ];
  const skipJobs = (reason: string): void => {
    run.skipped('createTranscription', 'uploads the fixture clip', reason);
    for (const operationId of jobOperations) run.skipped(operationId, 'on the run’s transcription', reason);
  };
  if (noJobs) return skipJobs('--no-jobs');
  if (mode === 'read-only' && !((state.freeTranscriptionsRemaining ?? 0) > 0)) {
    return skipJobs('read-only mode spends no money and the workspace has no free transcription left');
  }

  let events: Promise<string | undefined> | undefined;
  await run.case(
    'createTranscription',
    'uploads the fixture clip with the vocabulary (202); a replay is identical',
    async (s) => {
      const fields: Record<string, string> = state.vocabularyId ? { vocabulary_id: state.vocabularyId } : {};
      const idempotencyKey = randomUUID();
      const first = await s.call('createTranscription', {
        credential: key(s),
        form: uploadForm(clip, name, fields),
        headers: { 'idempotency-key': idempotencyKey },
      });
      s.expect(first, 202);
      const id = (first.body as { data: { id: string } }).data.id;
      state.transcriptionId = id;
      run.onCleanup(`delete transcription ${id}`, async () => {
        await run.case(
          'deleteTranscription',
          'deletes the run’s transcription (204); again is 404',
          async (d) => {
            d.expect(await d.call('deleteTranscription', { credential: key(d), path: { id } }), 204);
            d.expect(
              await d.call('deleteTranscription', { credential: key(d), path: { id } }),
              404,
              'not-found',
            );
            d.expect(
              await d.call('getTranscription', { credential: key(d), path: { id } }),
              404,
              'not-found',
            );
          },
        );
      });
      // Opened at once so that it sees the job move, not only its end.
      if (run.selected('streamTranscriptionEvents')) {
        events = run
          .case('streamTranscriptionEvents', 'follows the job to its terminal frame (id 102)', async (e) => {
            await followEvents(run, e, id);
          })
          .then(() => undefined);
      }
      const replay = await s.call('createTranscription', {
        credential: key(s),
        form: uploadForm(clip, name, fields),
        headers: { 'idempotency-key': idempotencyKey },
      });
      s.expect(replay, 202);
      s.check(
        replay.text === first.text,
        'an Idempotency-Key replay did not answer the first 202 byte for byte',
      );
    },
  );
  const id = state.transcriptionId;
  if (!id) {
    for (const operationId of jobOperations)
      run.skipped(operationId, 'on the run’s transcription', 'no transcription was created');
    return;
  }

  await run.case('getTranscriptionStatus', 'polls until the job ends completed', async (s) => {
    state.transcriptionStatus = await pollUntilTerminal(run, s, id);
    s.check(state.transcriptionStatus === 'completed', `the job ended ${state.transcriptionStatus}`);
  });
  await events;
  await run.case(
    'streamTranscriptionEvents',
    'a finished job: one terminal frame; Last-Event-ID 102 is 204',
    async (s) => {
      await followEvents(run, s, id);
      const done = await s.call('streamTranscriptionEvents', {
        credential: key(s),
        path: { id },
        headers: { 'last-event-id': TERMINAL_FRAME_ID },
      });
      s.expect(done, 204);
    },
  );
  await run.case('getTranscription', 'reads the completed record with its words', async (s) => {
    const answer = await s.call('getTranscription', { credential: key(s), path: { id } });
    s.expect(answer, 200);
    const data = (answer.body as { data: { status: string; resultText: unknown } }).data;
    s.check(
      data.status === 'completed' && typeof data.resultText === 'string',
      '$.data: not completed with a resultText',
    );
  });
  await run.case('searchTranscript', 'finds a word of the transcript with its times', async (s) => {
    const answer = await s.call('searchTranscript', {
      credential: key(s),
      path: { id },
      query: { q: 'forward' },
    });
    s.expect(answer, 200);
    const data = (answer.body as { data?: { count?: number; occurrences?: unknown[] } }).data;
    s.check(data?.count === data?.occurrences?.length, '$.data.count: not the number of occurrences');
  });
  await run.case('updateTranscription', 'names a speaker, then clears the names', async (s) => {
    for (const speakerNames of [{ SPEAKER_00: 'Contract' }, {}]) {
      const answer = await s.call('updateTranscription', {
        credential: key(s),
        path: { id },
        json: { speakerNames },
      });
      s.expect(answer, 200);
    }
  });
  await run.case('listTranscriptions', 'finds the run’s transcription by search and by status', async (s) => {
    const answer = await s.call('listTranscriptions', {
      credential: key(s),
      query: { search: state.tag, status: 'completed', limit: 5 },
    });
    s.expect(answer, 200);
    const ids = ((answer.body as { data?: Array<{ id: string }> }).data ?? []).map((item) => item.id);
    s.check(ids.includes(id), `$.data: ${id} not found by search=${state.tag}`);
  });
  await run.case(
    'getTranscriptionAudio',
    'the upload back: whole (200), a range (206), past the end (416)',
    async (s) => {
      const whole = await s.call('getTranscriptionAudio', { credential: key(s), path: { id } });
      s.expect(whole, 200);
      s.check(whole.bytes.equals(clip), 'the audio is not the bytes uploaded');
      const range = await s.call('getTranscriptionAudio', {
        credential: key(s),
        path: { id },
        headers: { range: 'bytes=0-99' },
      });
      s.expect(range, 206);
      s.check(range.bytes.equals(clip.subarray(0, 100)), 'bytes=0-99 did not answer the first 100 bytes');
      const beyond = await s.call('getTranscriptionAudio', {
        credential: key(s),
        path: { id },
        headers: { range: `bytes=${clip.length + 10}-` },
      });
      s.expect(beyond, 416, 'range-not-satisfiable');
    },
  );
  for (const [format, mediaType] of Object.entries(EXPORT_TYPES)) {
    await run.case('exportTranscription', `exports ${format} as ${mediaType}`, async (s) => {
      const answer = await s.call('exportTranscription', {
        credential: key(s),
        path: { id },
        query: { format },
      });
      s.expect(answer, 200);
      s.check(
        answer.headers['content-type']?.startsWith(mediaType) === true,
        `Content-Type ${answer.headers['content-type']}`,
      );
      if (format === 'docx')
        s.check(answer.bytes.subarray(0, 2).toString() === 'PK', 'the docx is not a zip file');
      if (format === 'vtt') s.check(answer.text.startsWith('WEBVTT'), 'the vtt does not start with WEBVTT');
    });
  }
  await run.case('exportTranscription', 'layout controls (200) and their refusals (422)', async (s) => {
    const controlled = await s.call('exportTranscription', {
      credential: key(s),
      path: { id },
      query: {
        format: 'srt',
        max_chars_per_line: 20,
        max_lines: 1,
        max_cue_seconds: 2.5,
        speaker_labels: 'false',
      },
    });
    s.expect(controlled, 200);
    s.expect(
      await s.call('exportTranscription', { credential: key(s), path: { id }, query: { format: 'pdf' } }),
      422,
      'invalid-format',
    );
    s.expect(
      await s.call('exportTranscription', { credential: key(s), path: { id } }),
      422,
      'invalid-format',
    );
    s.expect(
      await s.call('exportTranscription', {
        credential: key(s),
        path: { id },
        query: { format: 'srt', max_lines: 9 },
      }),
      422,
      'validation',
    );
    s.expect(
      await s.call('exportTranscription', {
        credential: key(s),
        path: { id },
        query: { format: 'txt', timestamps: 'maybe' },
      }),
      422,
      'validation',
    );
  });
  if (state.receiver) {
    await run.case(
      'deliverTranscriptionCompleted',
      'transcription.completed arrives signed and as documented',
      async (s) => {
        const delivery = await waitForDelivery(
          run,
          state,
          (d) => d.envelope?.event === 'transcription.completed' && d.envelope.data?.id === id,
        );
        expectVerifiedDelivery(s, delivery, 'transcription.completed');
        run.seen.set('deliverTranscriptionCompleted', new Set(delivery ? [200] : []));
      },
    );
  } else {
    run.skipped(
      'deliverTranscriptionCompleted',
      'received and verified',
      'no --webhook-listen/--webhook-public-url',
    );
  }

  if (mode !== 'full') {
    run.skipped(
      'deliverTranscriptionFailed',
      'received and verified',
      'read-only mode makes one transcription only',
    );
    return;
  }
  await failedTranscriptionCases(run, state);
}

/** Full mode: a clip too short to transcribe ends `failed` (unbilled): not-ready export, transcription.failed. */
async function failedTranscriptionCases(run: RunContext, state: RunState): Promise<void> {
  await run.case('createTranscription', 'a 0.3 s clip is accepted and ends failed, unbilled', async (s) => {
    const answer = await s.call('createTranscription', {
      credential: s.credential('key'),
      form: uploadForm(silentWav(0.3), `${state.tag}-too-short.wav`),
    });
    s.expect(answer, 202);
    const id = (answer.body as { data: { id: string } }).data.id;
    state.failedTranscriptionId = id;
    run.onCleanup(`delete transcription ${id}`, async () => {
      await run.client.call('deleteTranscription', {
        credential: { kind: 'bearer', token: run.options.apiKey },
        path: { id },
      });
    });
    const status = await pollUntilTerminal(run, s, id);
    s.check(status === 'failed', `a 0.3 s clip ended ${status}, expected failed`);
    const exported = await s.call('exportTranscription', {
      credential: s.credential('key'),
      path: { id },
      query: { format: 'txt' },
    });
    s.expect(exported, 400, 'not-ready');
  });
  const id = state.failedTranscriptionId;
  if (!state.receiver) {
    run.skipped(
      'deliverTranscriptionFailed',
      'received and verified',
      'no --webhook-listen/--webhook-public-url',
    );
    return;
  }
  await run.case(
    'deliverTranscriptionFailed',
    'transcription.failed arrives signed and as documented',
    async (s) => {
      if (!id) return s.skip('the failing upload was not accepted');
      const delivery = await waitForDelivery(
        run,
        state,
        (d) => d.envelope?.event === 'transcription.failed' && d.envelope.data?.id === id,
      );
      expectVerifiedDelivery(s, delivery, 'transcription.failed');
      run.seen.set('deliverTranscriptionFailed', new Set(delivery ? [200] : []));
    },
  );
}

/** OpenAI's synchronous route: refusals in every mode; in full mode one real transcription. */
export async function openAiCases(run: RunContext, state: RunState): Promise<void> {
  const clip = readFileSync(FIXTURE_CLIP);
  const code = (exchange: Exchange): unknown =>
    (exchange.body as { error?: { code?: unknown } } | undefined)?.error?.code;
  await run.case('createOpenAiTranscription', 'refusals in OpenAI’s error shape (400, 401)', async (s) => {
    const unknownModel = await s.call('createOpenAiTranscription', {
      credential: s.credential('key'),
      form: uploadForm(clip, `${state.tag}-openai.wav`, { model: 'whisper-9000' }),
    });
    s.expect(unknownModel, 400);
    s.check(
      code(unknownModel) === 'model_not_found',
      `$.error.code: expected model_not_found, got ${String(code(unknownModel))}`,
    );
    const noFile = new FormData();
    noFile.append('model', 'whisper-1');
    s.expect(
      await s.call('createOpenAiTranscription', { credential: s.credential('key'), form: noFile }),
      400,
    );
    const anonymous = await s.call('createOpenAiTranscription', {
      credential: s.credential('none'),
      form: uploadForm(clip, `${state.tag}-openai.wav`, { model: 'whisper-1' }),
    });
    s.expect(anonymous, 401);
    s.check(
      code(anonymous) === 'invalid_api_key',
      `$.error.code: expected invalid_api_key, got ${String(code(anonymous))}`,
    );
  });
  if (run.options.mode !== 'full' || run.options.noJobs) {
    run.skipped(
      'createOpenAiTranscription',
      'transcribes the clip synchronously',
      run.options.noJobs ? '--no-jobs' : 'read-only mode makes one transcription only',
    );
    return;
  }
  await run.case(
    'createOpenAiTranscription',
    'transcribes the clip synchronously (200 {"text"})',
    async (s) => {
      const fileName = `${state.tag}-openai.wav`;
      const answer = await s.call('createOpenAiTranscription', {
        credential: s.credential('key'),
        form: uploadForm(clip, fileName, { model: 'whisper-1', response_format: 'json' }),
        timeoutMs: run.options.jobTimeoutSeconds * 1000,
      });
      s.expect(answer, 200);
      s.check(typeof (answer.body as { text?: unknown }).text === 'string', '$.text is not a string');
      // The job behind it is an ordinary one: found by its file name and deleted at the end.
      const listed = await s.call('listTranscriptions', {
        credential: s.credential('key'),
        query: { search: fileName },
      });
      for (const item of (listed.body as { data?: Array<{ id: string }> }).data ?? []) {
        run.onCleanup(`delete transcription ${item.id}`, async () => {
          await run.client.call('deleteTranscription', {
            credential: { kind: 'bearer', token: run.options.apiKey },
            path: { id: item.id },
          });
        });
      }
    },
  );
}

/** Deepgram's synchronous route: refusals in every mode; in full mode one real transcription with `Token` auth. */
export async function deepgramCases(run: RunContext, _state: RunState): Promise<void> {
  const clip = readFileSync(FIXTURE_CLIP);
  const errCode = (exchange: Exchange): unknown =>
    (exchange.body as { err_code?: unknown } | undefined)?.err_code;
  const audio = { body: clip, contentType: 'application/octet-stream' };
  await run.case(
    'createDeepgramTranscription',
    'refusals in Deepgram’s error shape (400, 401)',
    async (s) => {
      const unknownModel = await s.call('createDeepgramTranscription', {
        credential: s.credential('key'),
        query: { model: 'aura-9000' },
        raw: audio,
      });
      s.expect(unknownModel, 400);
      s.check(
        errCode(unknownModel) === 'Bad Request',
        `$.err_code: expected Bad Request, got ${String(errCode(unknownModel))}`,
      );
      const anonymous = await s.call('createDeepgramTranscription', {
        credential: s.credential('none'),
        raw: audio,
      });
      s.expect(anonymous, 401);
      s.check(
        errCode(anonymous) === 'INVALID_AUTH',
        `$.err_code: expected INVALID_AUTH, got ${String(errCode(anonymous))}`,
      );
    },
  );
  if (run.options.mode !== 'full' || run.options.noJobs) {
    run.skipped(
      'createDeepgramTranscription',
      'transcribes the clip synchronously',
      run.options.noJobs ? '--no-jobs' : 'read-only mode makes one transcription only',
    );
    return;
  }
  await run.case(
    'createDeepgramTranscription',
    'transcribes the clip synchronously with `Authorization: Token` (200 ListenV1Response)',
    async (s) => {
      const answer = await s.call('createDeepgramTranscription', {
        credential: s.credential('none'),
        headers: { authorization: `Token ${run.options.apiKey}` },
        query: { punctuate: true, utterances: true },
        raw: audio,
        timeoutMs: run.options.jobTimeoutSeconds * 1000,
      });
      s.expect(answer, 200);
      const id = (answer.body as { metadata?: { request_id?: unknown } }).metadata?.request_id;
      s.check(typeof id === 'string', '$.metadata.request_id is not a string');
      // The job behind it is an ordinary one: deleted at the end.
      if (typeof id === 'string') {
        run.onCleanup(`delete transcription ${id}`, async () => {
          await run.client.call('deleteTranscription', {
            credential: { kind: 'bearer', token: run.options.apiKey },
            path: { id },
          });
        });
      }
    },
  );
}
