import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const problem = (slug: string) => `https://errors.transcription.example/problems/${slug}`;

describe('Problem details on every error', () => {
  let t: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    ({ apiKey } = await t.createWorkspace({ name: 'Errors' }));
  });
  afterAll(() => t.close());

  it('an unknown route is 404 not-found as problem+json', async () => {
    const response = await t.http().get('/v1/does-not-exist').set(bearer(apiKey));
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toEqual({
      type: problem('not-found'),
      title: 'Not found',
      status: 404,
      detail: expect.any(String),
    });
  });

  it('a wrong method on a known path is 404 not-found', async () => {
    const response = await t.http().patch('/v1/vocabularies').set(bearer(apiKey));
    expect(response.status).toBe(404);
    expect(response.body.type).toBe(problem('not-found'));
  });

  it('broken JSON is 400 malformed-request', async () => {
    const response = await t
      .http()
      .post('/v1/vocabularies')
      .set(bearer(apiKey))
      .set('Content-Type', 'application/json')
      .send('{"name": "x", "words": [');
    expect(response.status).toBe(400);
    expect(response.body.type).toBe(problem('malformed-request'));
    expectMatchesSpec(response, 'createVocabulary');
  });

  it('a JSON body over 1 MB is 413 payload-too-large', async () => {
    const words = Array.from({ length: 400 }, () => 'w'.repeat(3000));
    const response = await t.http().post('/v1/vocabularies').set(bearer(apiKey)).send({ name: 'big', words });
    expect(response.status).toBe(413);
    expect(response.body.type).toBe(problem('payload-too-large'));
    expectMatchesSpec(response, 'createVocabulary');
  });

  it('a non-JSON body on a JSON endpoint is 415 unsupported-media-type', async () => {
    const response = await t
      .http()
      .post('/v1/webhooks')
      .set(bearer(apiKey))
      .set('Content-Type', 'text/plain')
      .send('url=https://example.org');
    expect(response.status).toBe(415);
    expect(response.body.type).toBe(problem('unsupported-media-type'));
    expectMatchesSpec(response, 'createWebhook');
  });

  it('validation errors carry fieldErrors keyed by JSON path and formErrors', async () => {
    const response = await t
      .http()
      .post('/v1/vocabularies')
      .set(bearer(apiKey))
      .send({ name: '', words: ['ok', ''], colour: 'red' });
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(problem('validation'));
    expect(response.body.errors.formErrors).toEqual([]);
    expect(Object.keys(response.body.errors.fieldErrors).sort()).toEqual(['colour', 'name', 'words']);
    expectMatchesSpec(response, 'createVocabulary');
  });

  it('a path id that is not a UUID is 404, never 400', async () => {
    const response = await t.http().get('/v1/vocabularies/not-a-uuid').set(bearer(apiKey));
    expect(response.status).toBe(404);
    expect(response.body.type).toBe(problem('not-found'));
    expectMatchesSpec(response, 'getVocabulary');
  });
});
