import { randomUUID } from 'node:crypto';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const validation = 'https://errors.transcription.example/problems/validation';

describe('Webhook endpoints', () => {
  let t: TestApp;
  let mine: string;
  let theirs: string;
  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    mine = (await t.createWorkspace({ name: 'Hooks mine' })).apiKey;
    theirs = (await t.createWorkspace({ name: 'Hooks theirs' })).apiKey;
  });
  afterAll(() => t.close());

  const create = (key: string, body: unknown) =>
    t
      .http()
      .post('/v1/webhooks')
      .set(bearer(key))
      .send(body as object);

  it('returns the signing secret once at creation, never in the list', async () => {
    const created = await create(mine, {
      url: 'http://127.0.0.1:9/hook',
      events: ['transcription.completed'],
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      url: 'http://127.0.0.1:9/hook',
      events: ['transcription.completed'],
      isActive: true,
      createdOn: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    expectMatchesSpec(created, 'createWebhook');

    const list = await t.http().get('/v1/webhooks').set(bearer(mine));
    expect(list.status).toBe(200);
    const listed = list.body.data.find((endpoint: { id: string }) => endpoint.id === created.body.data.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('secret');
    expect(JSON.stringify(list.body)).not.toContain(created.body.data.secret);
    expectMatchesSpec(list, 'listWebhooks');
  });

  it('deletes, then 404 on a repeated delete and for another workspace', async () => {
    const created = await create(mine, { url: 'https://93.184.216.34/hook', events: ['balance.low'] });
    const id = created.body.data.id;
    const foreign = await t.http().delete(`/v1/webhooks/${id}`).set(bearer(theirs));
    expect(foreign.status).toBe(404);
    expectMatchesSpec(foreign, 'deleteWebhook');
    const deleted = await t.http().delete(`/v1/webhooks/${id}`).set(bearer(mine));
    expect(deleted.status).toBe(204);
    expectMatchesSpec(deleted, 'deleteWebhook');
    const again = await t.http().delete(`/v1/webhooks/${id}`).set(bearer(mine));
    expect(again.status).toBe(404);
    expect((await t.http().delete(`/v1/webhooks/${randomUUID()}`).set(bearer(mine))).status).toBe(404);
  });

  it.each([
    ['missing url', { events: ['balance.low'] }, 'url'],
    ['not a URL', { url: 'not a url', events: ['balance.low'] }, 'url'],
    ['an ftp URL', { url: 'ftp://example.org/x', events: ['balance.low'] }, 'url'],
    ['no events', { url: 'https://93.184.216.34/h', events: [] }, 'events'],
    ['an unknown event', { url: 'https://93.184.216.34/h', events: ['transcription.started'] }, 'events'],
    [
      'duplicate events',
      { url: 'https://93.184.216.34/h', events: ['balance.low', 'balance.low'] },
      'events',
    ],
  ])('refuses %s with 422 validation', async (_case, body, field) => {
    const response = await create(mine, body);
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(validation);
    expect(Object.keys(response.body.errors.fieldErrors)).toContain(field);
    expectMatchesSpec(response, 'createWebhook');
  });

  it('refuses a non-ASCII URL (not `format: uri`) with 422 naming its ASCII form', async () => {
    const response = await create(mine, {
      url: 'https://bücher.example/präsentation?q=日本',
      events: ['balance.low'],
    });
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(validation);
    expect(response.body.errors.fieldErrors.url).toEqual([
      'url must be ASCII (RFC 3986): send https://xn--bcher-kva.example/pr%C3%A4sentation?q=%E6%97%A5%E6%9C%AC',
    ]);
    expectMatchesSpec(response, 'createWebhook');
    const list = await t.http().get('/v1/webhooks').set(bearer(mine));
    expect(JSON.stringify(list.body)).not.toContain('bücher');
    expectMatchesSpec(list, 'listWebhooks');
  });

  it('refuses a URL with characters RFC 3986 forbids', async () => {
    const response = await create(mine, { url: 'https://example.org/a|b', events: ['balance.low'] });
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(validation);
    expect(Object.keys(response.body.errors.fieldErrors)).toEqual(['url']);
    expectMatchesSpec(response, 'createWebhook');
  });

  describe('with WEBHOOK_ALLOW_PRIVATE_TARGETS=false (the production default)', () => {
    let strict: TestApp;
    let key: string;
    beforeAll(async () => {
      strict = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', ROLE: 'api' });
      key = (await strict.createWorkspace({ name: 'Hooks strict' })).apiKey;
    });
    afterAll(() => strict.close());

    it.each([
      'https://127.0.0.1:8080/hook',
      'https://localhost/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://0.0.0.0/hook',
      // IPv6 forms that embed a loopback or private IPv4 address.
      'https://[2002:7f00:1::]/hook', // 6to4 of 127.0.0.1
      'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', // Teredo, client 127.0.0.1
      'https://[64:ff9b:1::7f00:1]/hook', // local-use NAT64
      'https://[64:ff9b::7f00:1]/hook', // well-known NAT64 of 127.0.0.1
      'https://[::7f00:1]/hook', // IPv4-compatible 127.0.0.1
      'https://[::ffff:0:7f00:1]/hook', // IPv4-translated 127.0.0.1
      'https://[::ffff:7f00:1]/hook', // IPv4-mapped 127.0.0.1, hex
    ])('refuses %s at registration', async (url) => {
      const response = await strict
        .http()
        .post('/v1/webhooks')
        .set(bearer(key))
        .send({ url, events: ['balance.low'] });
      expect(response.status).toBe(422);
      expect(response.body.errors.fieldErrors.url[0]).toMatch(/loopback|private|reserved|resolved/);
      expectMatchesSpec(response, 'createWebhook');
    });

    it('refuses a host name that resolves to a private address without naming that address', async () => {
      // Printing the resolved address would let any key holder map internal DNS.
      const response = await strict
        .http()
        .post('/v1/webhooks')
        .set(bearer(key))
        .send({ url: 'https://localhost/hook', events: ['balance.low'] });
      expect(response.status).toBe(422);
      expectMatchesSpec(response, 'createWebhook');
      expect(response.body.errors.fieldErrors.url).toEqual([expect.stringMatching(/not a public address/)]);
      expect(JSON.stringify(response.body)).not.toMatch(/127\.0\.0\.1|::1\b/);
    });

    it('refuses an http URL: deliveries are HTTPS POSTs', async () => {
      const response = await strict
        .http()
        .post('/v1/webhooks')
        .set(bearer(key))
        .send({ url: 'http://93.184.216.34/hook', events: ['balance.low'] });
      expect(response.status).toBe(422);
      expect(response.body.type).toBe(validation);
      expect(response.body.errors.fieldErrors.url).toEqual([
        'url must use https (deliveries are HTTPS POSTs)',
      ]);
      expectMatchesSpec(response, 'createWebhook');
    });

    it('accepts a public address', async () => {
      const response = await strict
        .http()
        .post('/v1/webhooks')
        .set(bearer(key))
        .send({ url: 'https://93.184.216.34/hook', events: ['transcription.failed'] });
      expect(response.status).toBe(201);
    });
  });
});
