import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { BadRequestError } from 'openai';
import { DataSource } from 'typeorm';
import { probeMedia } from '../../src/engine/audio/media-probe';
import { Transcription } from '../../src/transcriptions/transcription.entity';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { upload, waitForTerminal } from '../support/transcriptions';

const JFK = testAudio('whisper.cpp/jfk.wav'); // 11 s

/**
 * The JFK clip as Opus, repeated `loops` + 1 times and written as WebM through a pipe (stream copy, so it
 * takes about a second). `live`: the muxer writes no duration at all (as a browser's MediaRecorder);
 * otherwise ffmpeg states the input's duration (11 s) in the header, whatever follows it.
 */
function pipedWebm(name: string, loops: number, live: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'stt-unstated-'));
  const clip = join(dir, 'clip.webm');
  execFileSync('ffmpeg', ['-v', 'error', '-i', JFK, '-ac', '1', '-c:a', 'libopus', '-b:a', '16k', clip]);
  const path = join(dir, name);
  const muxer = live ? ['-live', '1'] : [];
  const webm = execFileSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-stream_loop',
      String(loops),
      '-i',
      clip,
      '-c',
      'copy',
      ...muxer,
      '-f',
      'webm',
      'pipe:1',
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  writeFileSync(path, webm);
  return path;
}

/**
 * Files that state no duration must not get free, unlimited work: every gate (free limit, paid quote,
 * the OpenAI route's length limit) uses a duration known before the 202, measured when the container
 * states none; and a job whose audio decodes longer than it was admitted for is stopped and failed, unbilled.
 */
describe('Audio whose container states no (or a wrong) duration', () => {
  // 219 loops: 220 × 11 s ≈ 40.3 min, over the 30 free minutes.
  let fortyMinutes: string;
  beforeAll(async () => {
    fortyMinutes = pipedWebm('forty-minutes.webm', 219, true);
    // The premise: ffprobe finds no duration in the container.
    expect((await probeMedia(fortyMinutes)).durationSeconds).toBeNull();
  }, 60_000);

  describe('at upload (ROLE=api: jobs stay queued)', () => {
    let t: TestApp;
    let baseURL: string;
    beforeAll(async () => {
      t = await startTestApp({ ROLE: 'api', OPENAI_SYNC_WAIT_TIMEOUT_SECONDS: '2' });
      await t.app.listen(0, '127.0.0.1');
      baseURL = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}/v1`;
    });
    const workspaces: string[] = [];
    afterAll(async () => {
      // Jobs left queued here would hold the next app's worker for 40 minutes.
      for (const workspaceId of workspaces) {
        await t.app.get(DataSource).getRepository(Transcription).delete({ workspaceId });
      }
      await t.close();
    });

    const jobs = (workspaceId: string) =>
      t.app.get(DataSource).getRepository(Transcription).find({ where: { workspaceId } });
    const workspace = async (request: Parameters<TestApp['createWorkspace']>[0]) => {
      const created = await t.createWorkspace(request);
      workspaces.push(created.workspaceId);
      return created;
    };

    it('a 40-minute file with no stated duration gets 402 on a zero balance with free transcriptions left', async () => {
      const { apiKey, workspaceId } = await workspace({
        name: 'Free only',
        balanceEur: 0,
        freeTranscriptions: 3,
      });
      const response = await upload(t, apiKey, fortyMinutes);
      expect({ status: response.status, estimatedCost: response.body.data?.estimatedCost }).toEqual({
        status: 402,
        estimatedCost: undefined,
      });
      expect(response.body.type).toMatch(/\/insufficient-balance$/);
      expect(response.body.detail).toContain('free transcriptions cover at most 30 min of audio');
      expect(response.body.freeRemaining).toBe(3);
      expect(await jobs(workspaceId)).toHaveLength(0);
    }, 60_000);

    it('a paid upload of such a file is quoted for its measured duration', async () => {
      const { apiKey } = await workspace({ name: 'Paying', balanceEur: 10, freeTranscriptions: 0 });
      const response = await upload(t, apiKey, fortyMinutes);
      expect(response.status).toBe(202);
      // About 2420 s at 0.003 EUR per minute.
      expect(response.body.data.estimatedCost).toBeCloseTo(0.121, 2);
      const detail = await t
        .http()
        .get(`/v1/transcriptions/${response.body.data.id as string}`)
        .set(bearer(apiKey));
      expectMatchesSpec(detail, 'getTranscription');
      expect(detail.body.data.duration).toBeGreaterThan(2400);
      expect(detail.body.data.duration).toBeLessThan(2430);
    }, 60_000);

    it('the same through audio_url (JSON body): 402, no job', async () => {
      const body = readFileSync(fortyMinutes);
      const server = createServer((_request, response) =>
        response.writeHead(200, { 'Content-Type': 'audio/webm' }).end(body),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { apiKey, workspaceId } = await workspace({
          name: 'Free only, by URL',
          balanceEur: 0,
          freeTranscriptions: 3,
        });
        const response = await t
          .http()
          .post('/v1/transcriptions')
          .set(bearer(apiKey))
          .send({ audio_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/forty.webm` });
        expectMatchesSpec(response, 'createTranscription');
        expect({ status: response.status, estimatedCost: response.body.data?.estimatedCost }).toEqual({
          status: 402,
          estimatedCost: undefined,
        });
        expect(response.body.detail).toContain('free transcriptions cover at most 30 min of audio');
        expect(await jobs(workspaceId)).toHaveLength(0);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }, 60_000);

    it('the OpenAI route refuses such a file over OPENAI_SYNC_MAX_DURATION_SECONDS, creating no job', async () => {
      const { apiKey, workspaceId } = await workspace({ name: 'OpenAI', freeTranscriptions: 3 });
      const refused = await new OpenAI({ apiKey, baseURL, maxRetries: 0 }).audio.transcriptions
        .create({ file: createReadStream(fortyMinutes), model: 'whisper-1' })
        .then(
          () => 'accepted',
          (error: unknown) => error,
        );
      expect(refused).toBeInstanceOf(BadRequestError);
      expect(refused).toMatchObject({ code: 'audio_too_long', param: 'file' });
      expect(await jobs(workspaceId)).toHaveLength(0);
    }, 60_000);
  });

  describe('with MAX_AUDIO_DURATION_HOURS=0.25', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ ROLE: 'api', MAX_AUDIO_DURATION_HOURS: '0.25' });
    });
    afterAll(() => t.close());

    it('refuses such a file over the deployment maximum at upload (422 on file), measuring no further than needed', async () => {
      const { apiKey } = await t.createWorkspace({ name: 'Too long', balanceEur: 10 });
      const response = await upload(t, apiKey, fortyMinutes);
      expect(response.status).toBe(422);
      expect(response.body.errors.fieldErrors.file[0]).toMatch(
        /^the audio lasts 16 min; .* at most 15 min per file$/,
      );
    }, 60_000);
  });

  describe('in the engine', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close(), 120_000);

    it('a header that states 11 s over 44 s of audio: the job fails unbilled once decoding passes what was admitted', async () => {
      // 3 loops: 4 × 11 s = 44 s of audio behind a header that states 11 s.
      const understated = pipedWebm('understated.webm', 3, false);
      expect((await probeMedia(understated)).durationSeconds).toBeCloseTo(11, 0);
      const { apiKey } = await t.createWorkspace({
        name: 'Understated',
        balanceEur: 0,
        freeTranscriptions: 1,
      });
      const created = await upload(t, apiKey, understated);
      expect(created.status).toBe(202);
      const end = await waitForTerminal(t, apiKey, created.body.data.id as string, 240_000);
      expect({ status: end.status, error: end.body.data.errorMessage?.split(':')[0] }).toEqual({
        status: 'failed',
        error: 'AUDIO_TOO_LONG',
      });
      expect(end.body.data.errorMessage).toContain('admitted');
      expect(end.body.data.cost).toBeNull();
      const balance = await t.http().get('/v1/account/balance').set(bearer(apiKey));
      expectMatchesSpec(balance, 'getBalance');
      expect(balance.body.data.freeTranscriptionsRemaining).toBe(1);
    }, 300_000);
  });
});
