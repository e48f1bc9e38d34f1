import { existsSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { join } from 'node:path';
import { EventSource } from 'eventsource';
import { DataSource } from 'typeorm';
import { LedgerEntry } from '../../src/billing/ledger-entry.entity';
import { Transcription } from '../../src/transcriptions/transcription.entity';
import { eventually } from '../support/chaos-harness';
import { expectEventFrameMatchesSpec, expectMatchesSpec } from '../support/openapi-contract';
import { childProcesses, cpuTicks, descendants } from '../support/process-table';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import {
  asBuffer,
  eventBlocks,
  generatedAudio,
  readEventStream,
  upload,
  waitForTerminal,
} from '../support/transcriptions';
import { StorageConfig } from '../../src/storage/storage.config';

type Word = { word: string; start: number; end: number; speaker: string | null };

/**
 * The engine runner forks this script per job, ahead of it (src/engine/runner/engine-runner.ts); a child that has
 * taken its job adds `(job)` to its command line, so waiting children are not mistaken for the working one.
 */
const ENGINE_CHILD = 'engine-child.js (job)';
/** USER_HZ: /proc counts CPU time in 1/100 s on Linux. */
const CPU_TICKS_PER_SECOND = 100;

/** A short reconnect hint, so an EventSource that would keep reconnecting does so often within the test. */
const SSE_RETRY_MS = 200;

/** Real jobs on real clips: upload → queue → engine child process → result, on this machine. */
describe('Transcription jobs on real audio', () => {
  let t: TestApp;
  let apiKey: string;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startTestApp({
      WORKER_CONCURRENCY: '2',
      JOB_BACKOFF_MS: '200',
      SSE_RETRY_MS: String(SSE_RETRY_MS),
    });
    ({ apiKey, workspaceId } = await t.createWorkspace({
      name: 'Jobs',
      balanceEur: 1,
      freeTranscriptions: 0,
    }));
  });
  afterAll(() => t.close());

  async function transcribe(file: string, fields: Record<string, string> = {}, key = apiKey) {
    const response = await upload(t, key, file, fields);
    expect(response.status).toBe(202);
    return waitForTerminal(t, key, response.body.data.id, 90_000);
  }

  it('transcribes English speech with word timings, one speaker, language and an exact charge', async () => {
    const before = (await t.http().get('/v1/account/balance').set(bearer(apiKey))).body.data
      .balance as number;
    const { status, body } = await transcribe(testAudio('whisper.cpp/jfk.wav'));
    expect(status).toBe('completed');
    const data = body.data as unknown as Record<string, unknown> & { resultJson: { words: Word[] } };
    expect(data.resultText).toMatch(/country/);
    expect(data).toMatchObject({
      progress: 100,
      language: null,
      detectedLanguage: 'en',
      speakerCount: 1,
      errorMessage: null,
      completedAt: expect.any(String),
    });
    expect(data.duration).toBeCloseTo(11, 0);
    const words = data.resultJson.words;
    expect(data.wordCount).toBe(words.length);
    expect(words.length).toBeGreaterThan(10);
    let previousStart = 0;
    for (const word of words) {
      expect(word.start).toBeGreaterThanOrEqual(previousStart);
      expect(word.end).toBeGreaterThanOrEqual(word.start);
      expect(word.end).toBeLessThanOrEqual(11.1);
      expect(word.speaker).toBe('SPEAKER_00');
      previousStart = word.start;
    }
    // 11 s standard: ceil(11) × 0.003 / 60 = 0.00055 EUR, charged once through the ledger.
    expect(data.cost).toBe(0.00055);
    const after = (await t.http().get('/v1/account/balance').set(bearer(apiKey))).body.data.balance as number;
    expect(Math.round((before - after) * 1e6)).toBe(550);
    const charges = await t.app
      .get(DataSource)
      .getRepository(LedgerEntry)
      .find({ where: { transcriptionId: data.id as string } });
    expect(charges.map((entry) => entry.amountMicro)).toEqual([-550]);
  });

  it.each([
    ['FLAC 44.1 kHz stereo', () => testAudio('openai-whisper/jfk.flac'), /country/],
    ['Ogg/Opus', () => testAudio('coqui-stt/LDC93S1_opus.opus'), /\w+/],
    [
      'MP3',
      () => generatedAudio('goforward.mp3', ['-i', testAudio('pocketsphinx/goforward.wav')]),
      /forward/,
    ],
    [
      'WebM/Opus',
      () =>
        generatedAudio('goforward.webm', ['-i', testAudio('pocketsphinx/goforward.wav'), '-c:a', 'libopus']),
      /forward/,
    ],
    [
      'MP4 video with speech',
      () =>
        generatedAudio('goforward.mp4', [
          '-f',
          'lavfi',
          '-i',
          'color=c=black:s=64x64:d=3',
          '-i',
          testAudio('pocketsphinx/goforward.wav'),
          '-shortest',
          '-c:v',
          'libx264',
          '-c:a',
          'aac',
        ]),
      /forward/,
    ],
  ])('transcribes %s', async (_kind, file, expected) => {
    const { status, body } = await transcribe(file());
    expect(body.data.errorMessage).toBeNull();
    expect(status).toBe('completed');
    expect(body.data.resultText).toMatch(expected);
  });

  it.each([
    ['near-silence', () => testAudio('kaldi-gstreamer-server/silence.wav'), /^NO_SPOKEN_AUDIO: /],
    [
      '5 s of digital silence',
      () => generatedAudio('silence.wav', ['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '5']),
      /^NO_SPOKEN_AUDIO: /,
    ],
    ['music-only video', () => testAudio('lhotse/big_buck_bunny_small.mp4'), /^NO_SPOKEN_AUDIO: /],
    ['an empty WAV (0 s)', () => testAudio('pocketsphinx/null.wav'), /^AUDIO_TOO_SHORT: /],
    [
      '0.5 s of speech',
      () => generatedAudio('short.wav', ['-i', testAudio('pocketsphinx/goforward.wav'), '-t', '0.5']),
      /^AUDIO_TOO_SHORT: /,
    ],
  ])('fails %s with the right code, invents no words and bills nothing', async (_kind, file, code) => {
    const before = (await t.http().get('/v1/account/balance').set(bearer(apiKey))).body.data.balance;
    const { status, body } = await transcribe(file());
    expect(status).toBe('failed');
    expect(body.data.errorMessage).toMatch(code);
    expect(body.data.resultText).toBeNull();
    expect(body.data.resultJson).toBeNull();
    expect(body.data.cost).toBeNull();
    expect((await t.http().get('/v1/account/balance').set(bearer(apiKey))).body.data.balance).toBe(before);
  });

  it('refuses German on the English-only standard tier at upload, before a job or a free transcription is used', async () => {
    const trial = await t.createWorkspace({ name: 'Trial jobs', balanceEur: 0, freeTranscriptions: 1 });
    const refused = await upload(t, trial.apiKey, testAudio('picovoice-leopard/test_de.wav'), {
      language: 'de',
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.fieldErrors.language[0]).toMatch(/English only/);
    const listed = await t.http().get('/v1/transcriptions').set(bearer(trial.apiKey));
    expect(listed.body.data).toEqual([]);
    const balance = await t.http().get('/v1/account/balance').set(bearer(trial.apiKey));
    expect(balance.body.data.freeTranscriptionsRemaining).toBe(1);
  });

  it('a vocabulary changes what the recogniser hears on a real clip', async () => {
    const clip = testAudio('coqui-stt/LDC93S1.wav');
    const plain = await transcribe(clip);
    const boosted = await transcribe(clip, { vocabulary: '["greasy", "wash water", "dark suit"]' });
    expect(plain.body.data.resultText).not.toMatch(/greasy/);
    expect(boosted.body.data.resultText).toMatch(/greasy/);
  });

  it('labels speakers on a three-speaker clip when told how many there are', async () => {
    const { status, body } = await transcribe(testAudio('picovoice-falcon/test.wav'), {
      num_speakers: '3',
    });
    expect(status).toBe('completed');
    expect(body.data.speakerCount).toBe(3);
    const speakers = new Set((body.data.resultJson as { words: Word[] }).words.map((word) => word.speaker));
    expect(speakers).toEqual(new Set(['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02']));
  });

  it('streams state over SSE: current state first, progress that moves, closes after completed', async () => {
    const created = await upload(t, apiKey, testAudio('speechbrain/LJ050-0131.wav'));
    const id = created.body.data.id as string;
    const response = await readEventStream(t, apiKey, id);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    expectMatchesSpec({ ...response, body: undefined }, 'streamTranscriptionEvents');
    const blocks = eventBlocks(response.body as string);
    const frames = blocks.map((block) => block.data);
    frames.forEach((frame) => expectEventFrameMatchesSpec(frame));
    expect((response.body as string).startsWith(`retry: ${SSE_RETRY_MS}\n\n`)).toBe(true);
    const ids = blocks.map((block) => Number(block.id));
    expect([...new Set(ids)].sort((a, b) => a - b)).toEqual(ids);
    expect(blocks[blocks.length - 1].id).toBe('102');
    expect(['queued', 'processing']).toContain(frames[0].status);
    expect(frames[frames.length - 1]).toEqual({ status: 'completed', progress: 100 });
    const processing = frames.filter((frame) => frame.status === 'processing').map((frame) => frame.progress);
    expect(new Set(processing).size).toBeGreaterThanOrEqual(3);
    expect([...processing].sort((a, b) => a - b)).toEqual(processing);

    const again = await readEventStream(t, apiKey, id);
    expect(again.body).toBe(
      `retry: ${SSE_RETRY_MS}\n\nid: 102\ndata: {"status":"completed","progress":100}\n\n`,
    );
  });

  it('an EventSource gets the terminal frame, then stops: its one reconnect is answered 204', async () => {
    const created = await upload(t, apiKey, testAudio('pocketsphinx/goforward.wav'));
    const id = created.body.data.id as string;
    const server = t.app.getHttpServer() as Server;
    const port = await t.listeningPort();
    // Every request the server gets for this stream, by the Last-Event-ID it carries (the control client's apart).
    const requests: Array<string | null> = [];
    const controlRequests: Array<string | null> = [];
    const countRequest = (request: IncomingMessage) => {
      if (request.url === `/v1/transcriptions/${id}/events`) {
        const lastEventId = request.headers['last-event-id']?.toString() ?? null;
        (request.headers['x-control'] ? controlRequests : requests).push(lastEventId);
      }
    };
    // Ahead of the application, which rewrites request.url while routing.
    server.prependListener('request', countRequest);
    const open = (extraHeaders: Record<string, string> = {}) =>
      new EventSource(`http://127.0.0.1:${port}/v1/transcriptions/${id}/events`, {
        fetch: (url, init) =>
          fetch(url, { ...init, headers: { ...init?.headers, ...bearer(apiKey), ...extraHeaders } }),
      });
    // The client gives up only on a 204 (or another failure): wait for that, within a deadline.
    const closedWith = (client: EventSource) =>
      new Promise<number | undefined>((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`still connected after 90 s; requests: ${JSON.stringify(requests)}`)),
          90_000,
        );
        client.onerror = (event) => {
          if (client.readyState !== EventSource.CLOSED) return;
          clearTimeout(deadline);
          resolve(event.code);
        };
      });
    const source = open();
    let control: EventSource | null = null;
    const frames: Array<{ id: string; data: unknown }> = [];
    source.onmessage = (event) => frames.push({ id: event.lastEventId, data: JSON.parse(event.data) });
    try {
      expect(await closedWith(source)).toBe(204);
      expect(frames.at(-1)).toEqual({ id: '102', data: { status: 'completed', progress: 100 } });
      const ids = frames.map((frame) => Number(frame.id));
      expect([...new Set(ids)].sort((a, b) => a - b)).toEqual(ids);
      // Does it stay away? A control client opened now gets the terminal frame, waits one retry period and
      // comes back (answered 204). A reconnect timer of the first client would have been set earlier with the
      // same period, so by the time the control has come back, the first one has had its chance to.
      control = open({ 'X-Control': '1' });
      expect(await closedWith(control)).toBe(204);
      expect(controlRequests).toEqual([null, '102']);
      expect(source.readyState).toBe(EventSource.CLOSED);
      expect(requests).toEqual([null, '102']);
    } finally {
      source.close();
      control?.close();
      server.off('request', countRequest);
    }
  });

  it('exports a completed transcription in all five formats', async () => {
    const created = await upload(t, apiKey, testAudio('pocketsphinx/goforward.wav'));
    const { status } = await waitForTerminal(t, apiKey, created.body.data.id);
    expect(status).toBe('completed');
    const types: Record<string, RegExp> = {
      txt: /^text\/plain/,
      srt: /^text\/srt/,
      vtt: /^text\/vtt/,
      json: /^application\/json/,
      docx: /^application\/vnd\.openxmlformats-officedocument\.wordprocessingml\.document/,
    };
    for (const [format, type] of Object.entries(types)) {
      const response = await t
        .http()
        .get(`/v1/transcriptions/${created.body.data.id}/export?format=${format}`)
        .set(bearer(apiKey))
        .buffer(true)
        .parse(asBuffer);
      expect({ format, status: response.status }).toEqual({ format, status: 200 });
      expect(response.headers['content-type']).toMatch(type);
      expect(response.headers['content-disposition']).toMatch(
        new RegExp(`^attachment; filename="goforward\\.${format}"`),
      );
      expectMatchesSpec(
        { ...response, body: format === 'json' ? JSON.parse(response.body.toString()) : undefined },
        'exportTranscription',
      );
      const body = response.body as Buffer;
      if (format === 'vtt') expect(body.toString()).toMatch(/^WEBVTT\n[\s\S]*<v Speaker 1>/);
      if (format === 'srt') expect(body.toString()).toMatch(/^1\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\n/);
      if (format === 'docx') expect(body.subarray(0, 2).toString()).toBe('PK');
    }
  });

  it('an upload named in UTF-8 exports under exactly that base name in filename* (RFC 8187)', async () => {
    const name = 'Präsentation “Q3” – 日本';
    // A real multipart request whose filename parameter carries the UTF-8 bytes, as browsers send it.
    const created = await t
      .http()
      .post('/v1/transcriptions')
      .set(bearer(apiKey))
      .attach('file', testAudio('pocketsphinx/goforward.wav'), { filename: `${name}.wav` });
    expect(created.status).toBe(202);
    expectMatchesSpec(created, 'createTranscription');
    const { status, body } = await waitForTerminal(t, apiKey, created.body.data.id);
    expect(status).toBe('completed');
    expect(body.data.originalFileName).toBe(`${name}.wav`);

    const response = await t
      .http()
      .get(`/v1/transcriptions/${created.body.data.id}/export?format=txt`)
      .set(bearer(apiKey));
    expect(response.status).toBe(200);
    expectMatchesSpec({ ...response, body: undefined }, 'exportTranscription');
    const disposition = response.headers['content-disposition'];
    const extValue = /filename\*=UTF-8''([^;\s]+)/u.exec(disposition)?.[1];
    expect(extValue).toBe('Pr%C3%A4sentation%20%E2%80%9CQ3%E2%80%9D%20%E2%80%93%20%E6%97%A5%E6%9C%AC.txt');
    expect(decodeURIComponent(extValue ?? '')).toBe(`${name}.txt`);
    expect(disposition).toMatch(/^attachment; filename="[\x20-\x21\x23-\x5b\x5d-\x7e]+\.txt"; /u);
  });

  it('deleting a running job kills its engine child (no CPU after the delete), removes the file, bills nothing; then 404', async () => {
    // The engine child is forked by this process's worker (ROLE=all in the test app): found by pid in /proc.
    const enginesBefore = new Set(childProcesses(process.pid, ENGINE_CHILD));
    const created = await upload(t, apiKey, testAudio('faster-whisper/multilingual.mp3'));
    const id = created.body.data.id as string;
    // Progress above 0 comes from the engine child: it has opened the audio and is working through it (a
    // delete before that made the child fail on the missing file, with or without the cancel).
    await eventually(
      'the engine to report progress',
      async () => {
        const status = await t.http().get(`/v1/transcriptions/${id}/status`).set(bearer(apiKey));
        return status.body.data.status === 'processing' && status.body.data.progress > 0;
      },
      60_000,
      20,
    );
    const engine = await eventually(
      "the job's engine child",
      async () => childProcesses(process.pid, ENGINE_CHILD).find((pid) => !enginesBefore.has(pid)),
      30_000,
      20,
    );
    const row = await t.app.get(DataSource).getRepository(Transcription).findOneOrFail({ where: { id } });
    const stored = join(t.config.get(StorageConfig).STORAGE_DIR, row.storageKey ?? '');
    expect(existsSync(stored)).toBe(true);
    // A 60 s clip: the child has seconds of CPU work left (the status is still processing).
    const family = [engine, ...descendants(engine)];
    const deleted = await t.http().delete(`/v1/transcriptions/${id}`).set(bearer(apiKey));
    expect(deleted.status).toBe(204);
    expectMatchesSpec(deleted, 'deleteTranscription');
    const atDelete = new Map(family.map((pid) => [pid, cpuTicks(pid) ?? 0]));
    const lastSeen = new Map(atDelete);
    await eventually(
      'the engine child and every process it started to be gone',
      async () => {
        for (const pid of family) {
          const ticks = cpuTicks(pid);
          if (ticks !== null) lastSeen.set(pid, ticks);
        }
        return family.every((pid) => cpuTicks(pid) === null);
      },
      60_000,
      10,
    );
    // Killed on the delete, not left to finish its clip: what it ran after the 204 is the cancel's latency
    // (Redis pub/sub to the worker, then SIGKILL), far below the seconds the rest of the clip takes.
    const ticksAfterDelete = family.reduce(
      (sum, pid) => sum + (lastSeen.get(pid) ?? 0) - (atDelete.get(pid) ?? 0),
      0,
    );
    expect(ticksAfterDelete).toBeLessThan(CPU_TICKS_PER_SECOND / 2);
    expect(existsSync(stored)).toBe(false);
    for (const path of [`/v1/transcriptions/${id}`, `/v1/transcriptions/${id}/status`]) {
      const gone = await t.http().get(path).set(bearer(apiKey));
      expect(gone.status).toBe(404);
    }
    const again = await t.http().delete(`/v1/transcriptions/${id}`).set(bearer(apiKey));
    expect(again.status).toBe(404);
    // The job's engine is gone, so no result can arrive to be charged.
    const charges = await t.app
      .get(DataSource)
      .getRepository(LedgerEntry)
      .count({ where: { transcriptionId: id } });
    expect(charges).toBe(0);
    expect(workspaceId).toBeDefined();
  });
});
