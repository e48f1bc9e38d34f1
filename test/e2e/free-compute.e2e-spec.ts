import { DataSource } from 'typeorm';
import { Transcription } from '../../src/transcriptions/transcription.entity';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { insertTranscription, upload } from '../support/transcriptions';

/**
 * Processing a workspace can get without paying is bounded (docs/billing.md). ROLE=api: no
 * worker runs, so accepted jobs stay queued and keep their estimated cost committed.
 */
describe('What a workspace can get without paying', () => {
  let t: TestApp;
  const goforward = testAudio('pocketsphinx/goforward.wav'); // 2.8 s
  const jfk = testAudio('whisper.cpp/jfk.wav'); // 11 s

  beforeAll(async () => {
    t = await startTestApp({
      ROLE: 'api',
      // 1 EUR per minute: 3 s cost 0.05 EUR, 11 s cost 0.183333 EUR.
      PRICE_STANDARD_EUR_PER_MINUTE: '1',
      FREE_TRANSCRIPTION_MAX_MINUTES: '0.1',
      UNBILLED_AUDIO_MINUTES_PER_DAY: '0.1',
    });
  });
  afterAll(() => t.close());

  const jobs = (workspaceId: string) =>
    t.app.get(DataSource).getRepository(Transcription).find({ where: { workspaceId } });
  const balance = async (apiKey: string) => {
    const response = await t.http().get('/v1/account/balance').set(bearer(apiKey));
    expectMatchesSpec(response, 'getBalance');
    return response.body.data as { balance: number; freeTranscriptionsRemaining: number };
  };

  it('a free transcription covers only files up to FREE_TRANSCRIPTION_MAX_MINUTES; a longer one is paid', async () => {
    const { apiKey, workspaceId } = await t.createWorkspace({
      name: 'Free',
      balanceEur: 0,
      freeTranscriptions: 1,
    });
    const long = await upload(t, apiKey, jfk);
    expect(long.status).toBe(402);
    expect(long.body.type).toMatch(/\/insufficient-balance$/);
    expect(long.body.detail).toContain('free transcriptions cover at most 0.1 min of audio');
    expect((await balance(apiKey)).freeTranscriptionsRemaining).toBe(1);
    expect(await jobs(workspaceId)).toHaveLength(0);

    const short = await upload(t, apiKey, goforward);
    expect(short.status).toBe(202);
    expect((await balance(apiKey)).freeTranscriptionsRemaining).toBe(0);
  });

  it('starts no paid job the balance cannot cover, counting the jobs already queued', async () => {
    const { apiKey, workspaceId } = await t.createWorkspace({
      name: 'Paid',
      balanceEur: 0.1,
      freeTranscriptions: 0,
    });
    // 0.183 EUR of audio against 0.10 EUR: refused although the balance is over the minimum.
    const tooDear = await upload(t, apiKey, jfk);
    expect(tooDear.status).toBe(402);
    expect(tooDear.body.detail).toContain('this file costs about 0.183333 EUR');
    // Two 0.05 EUR files fit in 0.10 EUR; a third does not while the first two are queued.
    expect((await upload(t, apiKey, goforward)).status).toBe(202);
    expect((await upload(t, apiKey, goforward)).status).toBe(202);
    const third = await upload(t, apiKey, goforward);
    expect(third.status).toBe(402);
    expect(third.body.detail).toContain(
      '0.1 EUR of the 0.1 EUR balance is held by transcriptions in progress',
    );
    expect(await jobs(workspaceId)).toHaveLength(2);
  });

  it('refuses new jobs with 429 once failed jobs of the last 24 h hold the unbilled budget, until they age out', async () => {
    const { apiKey, workspaceId } = await t.createWorkspace({ name: 'Failing', balanceEur: 10 });
    const failedAt = new Date(Date.now() - 3600 * 1000);
    await insertTranscription(t, workspaceId, {
      status: 'failed',
      duration: 7,
      failedAt,
      errorMessage: 'DECODE_FAILED: x',
    });
    const refused = await upload(t, apiKey, goforward);
    expect(refused.status).toBe(429);
    expect(refused.body.type).toMatch(/\/unbilled-processing-limit$/);
    // The hour-old failure ages out in 23 h.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(22 * 3600);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(23 * 3600);

    // A failure older than a day no longer counts.
    await t.app
      .get(DataSource)
      .getRepository(Transcription)
      .update({ workspaceId, status: 'failed' }, { failedAt: new Date(Date.now() - 25 * 3600 * 1000) });
    expect((await upload(t, apiKey, goforward)).status).toBe(202);
  });
});
