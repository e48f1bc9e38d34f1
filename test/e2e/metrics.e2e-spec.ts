import { randomUUID } from 'node:crypto';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { upload, waitForTerminal } from '../support/transcriptions';

const PROBLEM_TYPE = 'https://errors.transcription.example/problems';

/** GET /metrics: off without METRICS_TOKEN, token-only access, Prometheus text with the documented names. */
describe('GET /metrics', () => {
  describe('without METRICS_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ ROLE: 'api', REDIS_PREFIX: `stt-test-metrics-off-${randomUUID()}` });
    });
    afterAll(() => t.close());

    it('does not exist: 404 not-found, as any unknown route, whatever credential is sent', async () => {
      for (const headers of [{}, bearer('anything-at-all-0123456789')]) {
        const response = await t.http().get('/metrics').set(headers);
        expect(response.status).toBe(404);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(response.body).toMatchObject({ type: `${PROBLEM_TYPE}/not-found`, status: 404 });
      }
    });
  });

  describe('with METRICS_TOKEN', () => {
    const token = `metrics-${randomUUID()}`;
    let t: TestApp;
    let apiKey: string;
    beforeAll(async () => {
      t = await startTestApp({
        ROLE: 'all',
        REDIS_PREFIX: `stt-test-metrics-${randomUUID()}`,
        METRICS_TOKEN: token,
      });
      ({ apiKey } = await t.createWorkspace({ name: 'Metrics', balanceEur: 1, freeTranscriptions: 0 }));
    });
    afterAll(() => t.close());

    it.each([
      ['no credential', {}],
      ['a wrong token', bearer(`${token}x`)],
      ['an API key', bearer('svc_live_0123456789012345678901234567890123456789')],
      ['the token in another scheme', { Authorization: `Basic ${token}` }],
    ])('401 unauthorized problem with %s', async (_name, headers) => {
      const response = await t.http().get('/metrics').set(headers);
      expect(response.status).toBe(401);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(response.body).toMatchObject({ type: `${PROBLEM_TYPE}/unauthorized`, status: 401 });
      expect(JSON.stringify(response.body)).not.toContain(token);
    });

    it('200 Prometheus text with queue depth, job, outcome, RTF, webhook and HTTP metrics after a job', async () => {
      const created = await upload(t, apiKey, testAudio('pocketsphinx/goforward.wav'));
      expect(created.status).toBe(202);
      const finished = await waitForTerminal(t, apiKey, created.body.data.id as string);
      expect({ status: finished.status, error: finished.body.data.errorMessage }).toEqual({
        status: 'completed',
        error: null,
      });

      const response = await t.http().get('/metrics').set(bearer(token));
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
      expect(response.headers['cache-control']).toBe('no-store');
      const text = response.text;
      for (const state of ['waiting', 'active', 'delayed', 'failed']) {
        expect(text).toContain(`stt_queue_jobs{queue="transcriptions",state="${state}"} `);
        expect(text).toContain(`stt_queue_jobs{queue="webhook-deliveries",state="${state}"} `);
      }
      expect(text).toContain('stt_queue_jobs{queue="transcriptions",state="waiting"} 0');
      // What deploy/prometheus/rules.yml alerts on (issue 34): the oldest waiting job's age (none waits: 0),
      // realtime refusals and ledger errors (declared, with no sample before the first).
      expect(text).toContain('stt_queue_oldest_waiting_seconds{queue="transcriptions"} 0');
      expect(text).toContain('stt_queue_oldest_waiting_seconds{queue="webhook-deliveries"} 0');
      expect(text).toContain('# TYPE stt_realtime_sessions_refused_total counter');
      expect(text).toContain('# TYPE stt_ledger_errors_total counter');
      expect(text).toContain(
        'stt_transcription_job_attempts_total{model="standard",outcome="completed",error_code=""} 1',
      );
      expect(text).toContain(
        'stt_transcription_job_duration_seconds_count{model="standard",outcome="completed"} 1',
      );
      expect(text).toContain('stt_transcription_real_time_factor_count{model="standard"} 1');
      expect(text).toMatch(/^stt_webhook_deliveries\{status="failed"\} \d+$/m);
      expect(text).toContain(
        'stt_http_requests_total{method="POST",route="/v1/transcriptions",status="202"} 1',
      );
      expect(text).toMatch(
        /^stt_http_request_duration_seconds_count\{method="GET",route="\/v1\/transcriptions\/:id\/status",status="200"\} [1-9]/m,
      );
      expect(text).toContain('stt_http_requests_total{method="GET",route="/metrics",status="401"} 4');
      expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    });

    it('labels requests that reached no route as unmatched, never by their raw path', async () => {
      await t.http().get(`/v1/nothing-here/${randomUUID()}`).set(bearer(apiKey));
      const text = (await t.http().get('/metrics').set(bearer(token))).text;
      expect(text).toContain('stt_http_requests_total{method="GET",route="unmatched",status="404"}');
      expect(text).not.toContain('nothing-here');
    });
  });
});
