import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const PROBLEMS = 'https://errors.transcription.example/problems';

/** Dashboard key management and settings: session endpoints, 403 for API keys. */
describe('API keys and settings of the dashboard (session endpoints)', () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<TestApp['createWorkspace']>>;
  let session: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    owner = await t.createWorkspace({ name: 'Keys' });
    session = bearer(t.issueToken(owner.userId));
  });
  afterAll(() => t.close());

  it('creates a key shown once, lists it by prefix only, the key works, and revoking it ends it (401)', async () => {
    const created = await t.http().post('/v1/api-keys').set(session).send({ name: 'CI pipeline' });
    expect(created.status).toBe(201);
    expectMatchesSpec(created, 'createApiKey');
    const { id, key, prefix } = created.body.data as { id: string; key: string; prefix: string };
    expect(key.startsWith(prefix)).toBe(true);
    expect(created.body.data.lastUsedAt).toBeNull();

    const used = await t.http().get('/v1/account/balance').set(bearer(key));
    expect(used.status).toBe(200);

    const listed = await t.http().get('/v1/api-keys').set(session);
    expect(listed.status).toBe(200);
    expectMatchesSpec(listed, 'listApiKeys');
    const entry = (listed.body.data as Array<Record<string, unknown>>).find((item) => item.id === id);
    expect(entry).toEqual({
      id,
      name: 'CI pipeline',
      prefix,
      // An owner's key without scopes asked holds `admin`, from any network, and names its creator.
      scopes: ['admin'],
      allowedNetworks: [],
      createdBy: owner.userId,
      createdAt: created.body.data.createdAt,
      lastUsedAt: expect.any(String),
      expiresAt: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain(key);
    // Newest first: the key made just now comes before the workspace's first key.
    expect((listed.body.data as Array<{ id: string }>)[0].id).toBe(id);

    const revoked = await t.http().delete(`/v1/api-keys/${id}`).set(session);
    expect(revoked.status).toBe(204);
    expectMatchesSpec(revoked, 'revokeApiKey');
    const refused = await t.http().get('/v1/account/balance').set(bearer(key));
    expect(refused.status).toBe(401);
    expect(refused.body.type).toBe(`${PROBLEMS}/invalid-api-key`);
    const relisted = await t.http().get('/v1/api-keys').set(session);
    expect((relisted.body.data as Array<{ id: string }>).map((item) => item.id)).not.toContain(id);
    const again = await t.http().delete(`/v1/api-keys/${id}`).set(session);
    expect(again.status).toBe(404);
    expectMatchesSpec(again, 'revokeApiKey');
  });

  it('answers 404 for another workspace’s key, which keeps working', async () => {
    const other = await t.createWorkspace({ name: 'Other' });
    const otherKeys = await t
      .http()
      .get('/v1/api-keys')
      .set(bearer(t.issueToken(other.userId)));
    const otherId = (otherKeys.body.data as Array<{ id: string }>)[0].id;
    const response = await t.http().delete(`/v1/api-keys/${otherId}`).set(session);
    expect(response.status).toBe(404);
    expectMatchesSpec(response, 'revokeApiKey');
    expect((await t.http().get('/v1/account/balance').set(bearer(other.apiKey))).status).toBe(200);
  });

  it('caps a workspace at API_KEYS_MAX_PER_WORKSPACE (50) live keys: the 51st is 422 api-key-limit, also under concurrent creations', async () => {
    const workspace = await t.createWorkspace({ name: 'Many keys' });
    const user = bearer(t.issueToken(workspace.userId));
    const create = (name: string) => t.http().post('/v1/api-keys').set(user).send({ name });
    // The workspace starts with its first key; 44 more make 45.
    for (let index = 2; index <= 45; index++) {
      const created = await create(`key ${index}`);
      expect({ index, status: created.status }).toEqual({ index, status: 201 });
    }
    // Ten at once for the last five places: exactly five are created.
    const racing = await Promise.all(Array.from({ length: 10 }, (_, index) => create(`racing ${index}`)));
    const statuses = racing.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(5).fill(201), ...Array(5).fill(422)]);
    const listed = await t.http().get('/v1/api-keys').set(user);
    expect(listed.body.data).toHaveLength(50);

    const refused = await create('key 51');
    expect(refused.status).toBe(422);
    expectMatchesSpec(refused, 'createApiKey');
    expect(refused.body).toMatchObject({ type: `${PROBLEMS}/api-key-limit`, limit: 50 });
    expect(refused.body.detail).toContain('at most 50 API keys');

    // A revoked key frees its place.
    const revoked = await t
      .http()
      .delete(`/v1/api-keys/${(listed.body.data as Array<{ id: string }>)[0].id}`)
      .set(user);
    expect(revoked.status).toBe(204);
    expect((await create('replacement')).status).toBe(201);
    expect((await create('one too many')).status).toBe(422);
  }, 120_000);

  it('refuses a name that is empty or over 100 characters (422)', async () => {
    for (const name of ['', 'x'.repeat(101)]) {
      const response = await t.http().post('/v1/api-keys').set(session).send({ name });
      expect(response.status).toBe(422);
      expectMatchesSpec(response, 'createApiKey');
    }
  });

  it.each([
    ['listApiKeys', 'get', '/v1/api-keys', undefined],
    ['createApiKey', 'post', '/v1/api-keys', { name: 'minted by a key' }],
    ['revokeApiKey', 'delete', '/v1/api-keys/00000000-0000-4000-8000-000000000000', undefined],
    ['getAccountSettings', 'get', '/v1/account/settings', undefined],
    ['updateAccountSettings', 'patch', '/v1/account/settings', { lowBalanceThreshold: 0 }],
  ] as const)('%s: an API-key caller gets 403 forbidden', async (operationId, method, path, body) => {
    for (const credential of [bearer(owner.apiKey), { 'X-API-KEY': owner.apiKey }]) {
      const response = await t.http()[method](path).set(credential).send(body);
      expect(response.status).toBe(403);
      expectMatchesSpec(response, operationId);
      expect(response.body.type).toBe(`${PROBLEMS}/forbidden`);
    }
  });

  it('the session cookie authenticates a GET but never a POST or DELETE (401)', async () => {
    const cookie = { Cookie: `stt_session=${t.issueToken(owner.userId)}` };
    const listed = await t.http().get('/v1/api-keys').set(cookie);
    expect(listed.status).toBe(200);
    expectMatchesSpec(listed, 'listApiKeys');
    const created = await t.http().post('/v1/api-keys').set(cookie).send({ name: 'by cookie' });
    expect(created.status).toBe(401);
    expectMatchesSpec(created, 'createApiKey');
    const keyId = (listed.body.data as Array<{ id: string }>)[0].id;
    const revoked = await t.http().delete(`/v1/api-keys/${keyId}`).set(cookie);
    expect(revoked.status).toBe(401);
    // The header wins over the cookie: an API key with a session cookie is still an API key.
    const keyed = await t.http().get('/v1/api-keys').set(cookie).set(bearer(owner.apiKey));
    expect(keyed.status).toBe(403);
  });

  describe('settings', () => {
    it('reads the defaults, changes a subset, keeps the rest, and clears retention with null', async () => {
      const workspace = await t.createWorkspace({ name: 'Settings', lowBalanceThresholdEur: 2 });
      const user = bearer(t.issueToken(workspace.userId));
      const initial = await t.http().get('/v1/account/settings').set(user);
      expect(initial.status).toBe(200);
      expectMatchesSpec(initial, 'getAccountSettings');
      expect(initial.body.data).toEqual({
        lowBalanceThreshold: 2,
        retention: { audioDays: null, transcriptDays: null },
      });

      const changed = await t
        .http()
        .patch('/v1/account/settings')
        .set(user)
        .send({ lowBalanceThreshold: 5.5, retention: { audioDays: 7 } });
      expect(changed.status).toBe(200);
      expectMatchesSpec(changed, 'updateAccountSettings');
      expect(changed.body.data).toEqual({
        lowBalanceThreshold: 5.5,
        retention: { audioDays: 7, transcriptDays: null },
      });

      const cleared = await t
        .http()
        .patch('/v1/account/settings')
        .set(user)
        .send({ retention: { audioDays: null, transcriptDays: 30 } });
      expect(cleared.body.data).toEqual({
        lowBalanceThreshold: 5.5,
        retention: { audioDays: null, transcriptDays: 30 },
      });
      const reread = await t.http().get('/v1/account/settings').set(user);
      expect(reread.body.data).toEqual(cleared.body.data);
    });

    it('keeps a threshold with more decimals than the micro-euro it is stored to, rounded', async () => {
      const response = await t
        .http()
        .patch('/v1/account/settings')
        .set(session)
        .send({ lowBalanceThreshold: 835736.7743737996 });
      expect(response.status).toBe(200);
      expectMatchesSpec(response, 'updateAccountSettings');
      expect(response.body.data.lowBalanceThreshold).toBe(835736.774374);
    });

    it.each([
      [{ lowBalanceThreshold: -1 }],
      [{ lowBalanceThreshold: '5' }],
      [{ retention: { audioDays: 1.5 } }],
      [{ retention: { audioDays: -1 } }],
      [{ retention: 7 }],
      [{ unknown: true }],
    ])('refuses %j with 422 validation', async (body) => {
      const response = await t.http().patch('/v1/account/settings').set(session).send(body);
      expect(response.status).toBe(422);
      expectMatchesSpec(response, 'updateAccountSettings');
    });
  });
});
