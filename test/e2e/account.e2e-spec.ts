import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

describe('Account endpoints', () => {
  let t: TestApp;
  let workspace: Awaited<ReturnType<TestApp['createWorkspace']>>;
  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    workspace = await t.createWorkspace({ name: 'Müller & Söhne', balanceEur: 12.5, freeTranscriptions: 2 });
  });
  afterAll(() => t.close());

  it('GET /v1/account/balance is the workspace snapshot', async () => {
    const response = await t.http().get('/v1/account/balance').set(bearer(workspace.apiKey));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: {
        balance: 12.5,
        freeTranscriptionsRemaining: 2,
        autoReloadEnabled: false,
        autoReloadThreshold: null,
        autoReloadAmount: null,
      },
    });
    expectMatchesSpec(response, 'getBalance');
  });

  it('GET /v1/account/profile has the user and the directory snapshot, for API keys and JWTs', async () => {
    for (const credential of [workspace.apiKey, t.issueToken(workspace.userId)]) {
      const response = await t.http().get('/v1/account/profile').set(bearer(credential));
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        id: workspace.userId,
        email: workspace.email,
        preferredLanguage: 'en',
        directory: {
          id: workspace.workspaceId,
          name: 'Müller & Söhne',
          slug: expect.stringMatching(/^muller-sohne-[0-9a-f]{6}$/),
          balance: 12.5,
          freeTranscriptionsRemaining: 2,
        },
      });
      expectMatchesSpec(response, 'getProfile');
    }
  });

  it('GET /v1/account/usage defaults to 6 months, newest first, zeros when there was no work', async () => {
    const response = await t.http().get('/v1/account/usage').set(bearer(workspace.apiKey));
    expect(response.status).toBe(200);
    const months: Array<{ month: string; count: number }> = response.body.data.months;
    expect(months).toHaveLength(6);
    expect(months[0].month).toBe(new Date().toISOString().slice(0, 7));
    expect(months.map((m) => m.month)).toEqual([...months.map((m) => m.month)].sort().reverse());
    expect(response.body.data.summary).toEqual({ totalTranscriptions: 0, totalMinutes: 0, totalCost: 0 });
    expectMatchesSpec(response, 'getUsage');
  });

  it.each([
    ['1', 1],
    ['12', 12],
  ])('accepts months=%s', async (months, expected) => {
    const response = await t.http().get(`/v1/account/usage?months=${months}`).set(bearer(workspace.apiKey));
    expect(response.status).toBe(200);
    expect(response.body.data.months).toHaveLength(expected);
  });

  it.each(['0', '13', 'abc', '2.5'])('refuses months=%s with 422 validation on months', async (months) => {
    const response = await t.http().get(`/v1/account/usage?months=${months}`).set(bearer(workspace.apiKey));
    expect(response.status).toBe(422);
    expect(response.body.type).toBe('https://errors.transcription.example/problems/validation');
    expect(Object.keys(response.body.errors.fieldErrors)).toEqual(['months']);
    expectMatchesSpec(response, 'getUsage');
  });
});
