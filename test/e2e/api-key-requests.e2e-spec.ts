import { DataSource } from 'typeorm';
import { ApiKeyRequestLog, type ApiKeyRequestView } from '../../src/auth/api-key-request-log.service';
import { RetentionPurgeService } from '../../src/transcriptions/retention/retention-purge.service';
import { eventually } from '../support/eventually';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { asBuffer, insertTranscription } from '../support/transcriptions';
import { AuthConfig } from '../../src/auth/auth.config';

const PROBLEMS = 'https://errors.transcription.example/problems';
const DAY_MS = 86_400_000;

type LoggedRequest = ApiKeyRequestView;

/** The request log of API keys, key expiry set at creation, and speaker names (dashboard extensions). */
describe('API key request log, key expiry and speaker names', () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<TestApp['createWorkspace']>>;
  let session: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await t.createWorkspace({ name: 'Request log' });
    session = bearer(t.issueToken(owner.userId));
  });
  afterAll(() => t.close());

  const logOf = (keyId: string, query = '') =>
    t.http().get(`/v1/api-keys/${keyId}/requests${query}`).set(session);

  it('creates a key that expires after expiresInDays (expiresAt), lists it so, and refuses a bad expiry', async () => {
    const before = Date.now();
    const created = await t
      .http()
      .post('/v1/api-keys')
      .set(session)
      .send({ name: 'Expiring', expiresInDays: 7 });
    expect(created.status).toBe(201);
    expectMatchesSpec(created, 'createApiKey');
    const expiresAt = Date.parse(created.body.data.expiresAt as string);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 7 * DAY_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 7 * DAY_MS + 1000);

    const listed = await t.http().get('/v1/api-keys').set(session);
    expectMatchesSpec(listed, 'listApiKeys');
    const entries = listed.body.data as Array<{ id: string; expiresAt: string | null }>;
    expect(entries.find((key) => key.id === created.body.data.id)?.expiresAt).toBe(
      created.body.data.expiresAt,
    );
    expect(entries.find((key) => key.id !== created.body.data.id)?.expiresAt).toBeNull();

    for (const expiresInDays of [0, 3651, 1.5, '7']) {
      const refused = await t.http().post('/v1/api-keys').set(session).send({ name: 'Bad', expiresInDays });
      expect({ expiresInDays, status: refused.status }).toEqual({ expiresInDays, status: 422 });
      expectMatchesSpec(refused, 'createApiKey');
      expect(refused.body.errors.fieldErrors).toHaveProperty('expiresInDays');
    }
  });

  it('logs each request a key makes (refused ones too), newest first, filtered by status; last use is noted', async () => {
    const created = await t.http().post('/v1/api-keys').set(session).send({ name: 'Logged' });
    const { id, key } = created.body.data as { id: string; key: string };
    expect(
      (await t.http().get('/v1/account/balance').set(bearer(key)).set('X-Request-Id', 'trace-ok-1')).status,
    ).toBe(200);
    const missing = await t
      .http()
      .get('/v1/transcriptions/00000000-0000-4000-8000-000000000000?cursor=secret-looking')
      .set({ 'X-API-KEY': key });
    expect(missing.status).toBe(404);

    const searched = await t
      .http()
      .get('/v1/transcriptions?search=quarterly%20numbers&limit=5')
      .set(bearer(key));
    expect(searched.status).toBe(200);

    const withSearch = await eventually(
      'the search in the log',
      async () => {
        const answer = await logOf(id);
        return answer.body.data?.length === 3 ? answer : null;
      },
      10_000,
    );
    expect((withSearch.body.data as LoggedRequest[])[0]).toMatchObject({
      path: '/v1/transcriptions',
      query: 'search=*&limit=5',
    });
    expect(JSON.stringify(withSearch.body)).not.toContain('quarterly');
    await t.app
      .get(DataSource)
      .query(`DELETE FROM api_key_requests WHERE api_key_id = $1 AND path = '/v1/transcriptions'`, [id]);

    const log = await eventually(
      'both requests in the log',
      async () => {
        const answer = await logOf(id);
        return answer.body.data?.length === 2 ? answer : null;
      },
      10_000,
    );
    expect(log.status).toBe(200);
    expectMatchesSpec(log, 'listApiKeyRequests');
    const [newest, oldest] = log.body.data as LoggedRequest[];
    expect(newest).toEqual({
      at: expect.any(String),
      method: 'GET',
      path: '/v1/transcriptions/00000000-0000-4000-8000-000000000000',
      // The query as a setting-looking value is kept (an export's format shows); searched text never is.
      query: 'cursor=secret-looking',
      status: 404,
      durationMs: expect.any(Number),
      requestId: missing.headers['x-request-id'],
    });
    expect(oldest).toMatchObject({
      method: 'GET',
      path: '/v1/account/balance',
      status: 200,
      requestId: 'trace-ok-1',
    });
    expect(Date.parse(newest.at)).toBeGreaterThanOrEqual(Date.parse(oldest.at));

    const refused = await logOf(id, '?status=4xx');
    expectMatchesSpec(refused, 'listApiKeyRequests');
    expect((refused.body.data as LoggedRequest[]).map((entry) => entry.status)).toEqual([404]);
    expect((await logOf(id, '?status=200')).body.data).toEqual([oldest]);
    expect((await logOf(id, '?status=5xx')).body.data).toEqual([]);
    expect((await logOf(id, '?limit=1')).body.data).toEqual([newest]);

    const keys = await t.http().get('/v1/api-keys').set(session);
    const listed = (keys.body.data as Array<{ id: string; lastUsedAt: string | null }>).find(
      (k) => k.id === id,
    );
    expect(listed?.lastUsedAt).toEqual(expect.any(String));
  });

  it('answers 404 for another workspace’s key and a non-UUID id, 422 for a bad filter', async () => {
    const other = await t.createWorkspace({ name: 'Other' });
    const otherKeys = await t
      .http()
      .get('/v1/api-keys')
      .set(bearer(t.issueToken(other.userId)));
    const otherId = (otherKeys.body.data as Array<{ id: string }>)[0].id;
    for (const keyId of [otherId, 'not-a-uuid']) {
      const response = await logOf(keyId);
      expect(response.status).toBe(404);
      expectMatchesSpec(response, 'listApiKeyRequests');
      expect(response.body.type).toBe(`${PROBLEMS}/not-found`);
    }
    const ownId = ((await t.http().get('/v1/api-keys').set(session)).body.data as Array<{ id: string }>)[0]
      .id;
    for (const query of ['?status=4x', '?status=600', '?limit=0', '?limit=101']) {
      const response = await logOf(ownId, query);
      expect({ query, status: response.status }).toEqual({ query, status: 422 });
      expectMatchesSpec(response, 'listApiKeyRequests');
    }
  });

  it('is session-only: 403 for an API key (either header), 401 without credentials', async () => {
    const path = `/v1/api-keys/${((await t.http().get('/v1/api-keys').set(session)).body.data as Array<{ id: string }>)[0].id}/requests`;
    for (const credential of [bearer(owner.apiKey), { 'X-API-KEY': owner.apiKey }]) {
      const response = await t.http().get(path).set(credential);
      expect(response.status).toBe(403);
      expectMatchesSpec(response, 'listApiKeyRequests');
    }
    const anonymous = await t.http().get(path);
    expect(anonymous.status).toBe(401);
    expectMatchesSpec(anonymous, 'listApiKeyRequests');
  });

  it('drops a batch the database refuses without failing anything, then writes the next; the purge ages entries out', async () => {
    const created = await t.http().post('/v1/api-keys').set(session).send({ name: 'Purged' });
    const keyId = created.body.data.id as string;
    const log = t.app.get(ApiKeyRequestLog);
    const entry = {
      at: new Date(),
      method: 'GET',
      path: '/v1/x',
      query: '',
      status: 200,
      durationMs: 1,
      requestId: 'r',
    };
    // A value PostgreSQL refuses (not a uuid) fails the whole INSERT, as an outage would.
    log.record({ ...entry, apiKeyId: 'not-a-uuid' });
    log.record({ ...entry, apiKeyId: keyId, requestId: 'lost-with-its-batch' });
    await expect(log.flush()).resolves.toBeUndefined();

    const old = new Date(Date.now() - (t.config.get(AuthConfig).API_KEY_REQUEST_LOG_DAYS + 1) * DAY_MS);
    log.record({ ...entry, apiKeyId: keyId, at: old, requestId: 'old' });
    log.record({ ...entry, apiKeyId: keyId, requestId: 'fresh' });
    await log.flush();
    const ids = async () => ((await logOf(keyId)).body.data as LoggedRequest[]).map((e) => e.requestId);
    expect(await ids()).toEqual(['fresh', 'old']);

    const result = await t.app.get(RetentionPurgeService).purgeExpired();
    expect(result.requestLogEntriesDeleted).toBeGreaterThanOrEqual(1);
    expect(await ids()).toEqual(['fresh']);
    const [{ count }] = await t.app
      .get(DataSource)
      .query<Array<{ count: number }>>(
        `SELECT count(*)::int AS count FROM api_key_requests WHERE at <= now() - $1 * INTERVAL '1 day'`,
        [t.config.get(AuthConfig).API_KEY_REQUEST_LOG_DAYS],
      );
    expect(count).toBe(0);
  });

  it('names speakers (stored, in the detail) and every export uses the names; unknown ids and bad names are 422', async () => {
    const transcription = await insertTranscription(t, owner.workspaceId);
    const patch = (body: unknown) =>
      t
        .http()
        .patch(`/v1/transcriptions/${transcription.id}`)
        .set(bearer(owner.apiKey))
        .send(body as object);

    const named = await patch({ speakerNames: { SPEAKER_01: '  Obi-Wan ' } });
    expect(named.status).toBe(200);
    expectMatchesSpec(named, 'updateTranscription');
    expect(named.body.data.speakerNames).toEqual({ SPEAKER_01: 'Obi-Wan' });
    const read = await t.http().get(`/v1/transcriptions/${transcription.id}`).set(bearer(owner.apiKey));
    expectMatchesSpec(read, 'getTranscription');
    expect(read.body.data.speakerNames).toEqual({ SPEAKER_01: 'Obi-Wan' });

    const exported = async (format: string) =>
      (
        await t
          .http()
          .get(`/v1/transcriptions/${transcription.id}/export?format=${format}`)
          .set(bearer(owner.apiKey))
          .buffer(true)
          .parse(asBuffer)
      ).body as Buffer;
    for (const format of ['txt', 'srt', 'vtt', 'json']) {
      const text = (await exported(format)).toString('utf8');
      expect({ format, named: text.includes('Obi-Wan'), numbered: text.includes('Speaker 1') }).toEqual({
        format,
        named: true,
        numbered: true,
      });
      expect(text).not.toContain('Speaker 2');
    }
    // docx is a zip: the name is in its (deflated) document; unzip it to look.
    const { unzipSync, strFromU8 } = await import('fflate');
    const docx = unzipSync(new Uint8Array(await exported('docx')));
    expect(strFromU8(docx['word/document.xml'])).toContain('Obi-Wan');

    for (const [body, field] of [
      [{ speakerNames: { SPEAKER_07: 'Nobody' } }, 'speakerNames.SPEAKER_07'],
      [{ speakerNames: { SPEAKER_00: '   ' } }, 'speakerNames.SPEAKER_00'],
      [{ speakerNames: { SPEAKER_00: 'two\nlines' } }, 'speakerNames.SPEAKER_00'],
      [{ speakerNames: { SPEAKER_00: 'x'.repeat(101) } }, 'speakerNames.SPEAKER_00'],
      [{ speakerNames: { SPEAKER_00: 7 } }, 'speakerNames.SPEAKER_00'],
      [{ speakerNames: ['Alice'] }, 'speakerNames'],
      [{}, 'speakerNames'],
    ] as const) {
      const refused = await patch(body);
      expect({ body, status: refused.status }).toEqual({ body, status: 422 });
      expectMatchesSpec(refused, 'updateTranscription');
      expect(refused.body.errors.fieldErrors).toHaveProperty([field]);
    }
    const cleared = await patch({ speakerNames: {} });
    expect(cleared.body.data.speakerNames).toEqual({});
    expect((await exported('txt')).toString('utf8')).toContain('Speaker 2');

    const missing = await t
      .http()
      .patch('/v1/transcriptions/00000000-0000-4000-8000-000000000000')
      .set(bearer(owner.apiKey))
      .send({ speakerNames: {} });
    expect(missing.status).toBe(404);
    expectMatchesSpec(missing, 'updateTranscription');
  });
});
