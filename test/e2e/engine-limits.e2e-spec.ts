import { DataSource } from 'typeorm';
import { Transcription } from '../../src/transcriptions/transcription.entity';
import { expectEventFrameMatchesSpec, expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { eventFrames, readEventStream, upload, waitForTerminal } from '../support/transcriptions';

/** The maximum duration at upload, the duration known from the upload probe, progress that only moves forward. */
describe('Engine limits and progress through HTTP', () => {
  let t: TestApp;

  beforeAll(async () => {
    // 9 s: jfk.wav (11 s) is over the limit, LJ050-0131.wav (7.7 s) under it.
    t = await startTestApp({ MAX_AUDIO_DURATION_HOURS: '0.0025', WORKER_CONCURRENCY: '1' });
  });
  afterAll(() => t.close());

  it('refuses audio over MAX_AUDIO_DURATION_HOURS at upload with 422 on file, before a job exists', async () => {
    const { apiKey, workspaceId } = await t.createWorkspace({ name: 'Too long', freeTranscriptions: 1 });
    const response = await upload(t, apiKey, testAudio('whisper.cpp/jfk.wav'));
    expect(response.status).toBe(422);
    expect(response.body.type).toMatch(/\/validation$/);
    expect(response.body.errors).toEqual({
      fieldErrors: { file: ['the audio lasts 11 s; this service transcribes at most 9 s per file'] },
      formErrors: [],
    });
    const jobs = await t.app.get(DataSource).getRepository(Transcription).count({ where: { workspaceId } });
    expect(jobs).toBe(0);
    const balance = await t.http().get('/v1/account/balance').set(bearer(apiKey));
    expectMatchesSpec(balance, 'getBalance');
    expect(balance.body.data.freeTranscriptionsRemaining).toBe(1);
  });

  it('shows the duration from the upload probe before the job has run', async () => {
    const { apiKey } = await t.createWorkspace({ name: 'Duration' });
    const created = await upload(t, apiKey, testAudio('pocketsphinx/goforward.wav'));
    expect(created.status).toBe(202);
    const detail = await t.http().get(`/v1/transcriptions/${created.body.data.id}`).set(bearer(apiKey));
    expectMatchesSpec(detail, 'getTranscription');
    expect(detail.body.data.duration).toBeCloseTo(2.786, 2);
  });

  it('never shows progress going back, in the stream or in status reads', async () => {
    const { apiKey } = await t.createWorkspace({ name: 'Progress' });
    const created = await upload(t, apiKey, testAudio('speechbrain/LJ050-0131.wav'));
    const id = created.body.data.id as string;
    const stream = readEventStream(t, apiKey, id);
    const reads: number[] = [];
    const polling = (async () => {
      for (;;) {
        const status = await t.http().get(`/v1/transcriptions/${id}/status`).set(bearer(apiKey));
        expectMatchesSpec(status, 'getTranscriptionStatus');
        if (status.body.data.status !== 'queued') reads.push(status.body.data.progress as number);
        if (status.body.data.status === 'completed' || status.body.data.status === 'failed') return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const [response] = await Promise.all([stream, polling]);
    const frames = eventFrames(response.body as string);
    frames.forEach((frame) => expectEventFrameMatchesSpec(frame));
    const progress = frames.map((frame) => frame.progress);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect([...reads].sort((a, b) => a - b)).toEqual(reads);
    expect(frames.at(-1)).toEqual({ status: 'completed', progress: 100 });
    expect((await waitForTerminal(t, apiKey, id)).status).toBe('completed');
  });
});
