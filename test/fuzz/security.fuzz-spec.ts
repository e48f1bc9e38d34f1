/**
 * Security checks of the Bad-input section:
 * - tenant isolation on every resource route, generated from openapi.yaml's route list;
 * - JWT algorithm confusion (the variants test/e2e/auth.e2e-spec.ts does not already cover);
 * - SSRF targets refused at webhook registration with WEBHOOK_ALLOW_PRIVATE_TARGETS=false.
 * Rate limits across two API instances: test/e2e/rate-limit.e2e-spec.ts. Secrets in logs: secrets-in-logs.fuzz-spec.ts.
 */
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import type { ProvisionedWorkspace } from '../../src/auth/provisioning/workspace-provisioning.service';
import { expectMatchesSpec, specRoutes } from '../support/openapi-contract';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { insertTranscription } from '../support/transcriptions';
import { expectInvariants, slugOf } from './fuzz-support';

const SECRET = 'test-secret-that-is-long-enough-for-hs256';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

describe('Tenant isolation on every resource route (generated from openapi.yaml)', () => {
  let t: TestApp;
  let a: ProvisionedWorkspace;
  let b: ProvisionedWorkspace;
  const ofA: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    a = await t.createWorkspace({ name: 'Tenant A' });
    b = await t.createWorkspace({ name: 'Tenant B' });
    ofA.transcriptions = (
      await insertTranscription(t, a.workspaceId, { originalFileName: 'secret-of-a.wav' })
    ).id;
    ofA.vocabularies = (
      await t
        .http()
        .post('/v1/vocabularies')
        .set(bearer(a.apiKey))
        .send({ name: 'A words', words: ['Alpha'] })
    ).body.data.id;
    ofA.webhooks = (
      await t
        .http()
        .post('/v1/webhooks')
        .set(bearer(a.apiKey))
        .send({ url: 'http://127.0.0.1:9/a-hook', events: ['balance.low'] })
    ).body.data.id;
    ofA['api-keys'] = (
      await t
        .http()
        .post('/v1/api-keys')
        .set(bearer(t.issueToken(a.userId)))
        .send({ name: 'A key' })
    ).body.data.id;
    // A's owner (a member of A only), an invitation of A, and A itself (a workspace B's user may not switch to).
    ofA.members = a.userId;
    ofA.invitations = (
      await t
        .http()
        .post('/v1/workspace/invitations')
        .set(bearer(a.apiKey))
        .send({ email: `invited-to-a-${Date.now()}@example.com`, role: 'viewer' })
    ).body.data.id;
    ofA.workspaces = a.workspaceId;
  });
  /**
   * API keys are managed in a user session only (a key cannot mint keys), and only a signed-in user switches
   * workspaces: an API key is refused there with 403.
   */
  const sessionOnly = (path: string) => ['api-keys', 'workspaces'].includes(collection(path));
  afterAll(() => t.close());

  /** The collection a path names: `/v1/workspace/members/{id}` is the members of the caller's workspace. */
  const collection = (path: string) =>
    path.startsWith('/v2/transcript') // AssemblyAI's name for the same transcriptions
      ? 'transcriptions'
      : path.startsWith('/v1/workspace/')
        ? path.split('/')[3]
        : path.split('/')[2];
  /** AssemblyAI's routes answer `{"error"}`: "Transcript not found" is their not-found. */
  const assemblyAi = (path: string) => path.startsWith('/v2/');
  const idRoutes = specRoutes().filter((route) => route.path.includes('{id}'));
  const listRoutes = specRoutes().filter(
    (route) =>
      route.method === 'GET' &&
      !route.path.includes('{id}') &&
      specRoutes().some((other) => other.path === `${route.path}/{id}`),
  );

  it('the route list has resource routes of every collection', () => {
    expect(new Set(idRoutes.map((route) => collection(route.path)))).toEqual(
      new Set([
        'transcriptions',
        'vocabularies',
        'webhooks',
        'api-keys',
        'members',
        'invitations',
        'workspaces',
      ]),
    );
    expect(listRoutes.map((route) => route.operationId).sort()).toEqual(
      [
        'listTranscriptions',
        'listVocabularies',
        'listWebhooks',
        'listApiKeys',
        'listMembers',
        'listInvitations',
        'listAssemblyAiTranscripts',
      ].sort(),
    );
  });

  it.each(idRoutes.map((route) => [route.operationId, route] as const))(
    '%s: a resource of workspace A is 404 for workspace B (API key and JWT), and is left untouched',
    async (_operationId, route) => {
      const id = ofA[collection(route.path)];
      // Each request is valid but for whose resource it names, so the answer is about the id alone.
      const queries: Record<string, string> = {
        exportTranscription: '?format=json',
        searchTranscript: '?q=secret',
        searchAssemblyAiTranscript: '?words=secret',
      };
      const path =
        route.path.replace('{id}', id).replace('{format}', 'srt') + (queries[route.operationId] ?? '');
      const bodies: Record<string, unknown> = {
        updateVocabulary: { name: 'taken over', words: ['Mallory'] },
        updateTranscription: { speakerNames: { SPEAKER_00: 'Mallory' } },
        updateMember: { role: 'viewer' },
      };
      for (const { credential, apiKey } of [
        { credential: bearer(b.apiKey), apiKey: true },
        { credential: bearer(t.issueToken(b.userId)), apiKey: false },
        { credential: { 'X-API-KEY': b.apiKey }, apiKey: true },
      ]) {
        const response = await t
          .http()
          [route.method.toLowerCase() as Method](path)
          .set(credential)
          .send(bodies[route.operationId] as object);
        const expected =
          sessionOnly(route.path) && apiKey
            ? { status: 403, slug: 'forbidden' }
            : assemblyAi(route.path)
              ? { status: 404, slug: 'Transcript not found' }
              : { status: 404, slug: 'not-found' };
        const slug = assemblyAi(route.path) ? (response.body as { error?: string }).error : slugOf(response);
        expect({ route: route.operationId, status: response.status, slug }).toEqual({
          route: route.operationId,
          ...expected,
        });
        expectInvariants(response, route.operationId, { method: route.method, path });
        expect(response.text).not.toContain('secret-of-a');
      }
      // Still there and unchanged for its owner.
      const owner = await t
        .http()
        .get(
          assemblyAi(route.path)
            ? `/v1/transcriptions/${id}`
            : route.path.replace('{id}', id).replace(/\/(status|events|export|audio|search)$/, ''),
        )
        .set(bearer(a.apiKey));
      if (route.path.startsWith('/v1/workspaces/')) {
        // B's user did not join A by trying to switch to it.
        const mine = await t
          .http()
          .get('/v1/workspaces')
          .set(bearer(t.issueToken(b.userId)));
        expect(mine.body.data.map((item: { id: string }) => item.id)).not.toContain(id);
      } else if (sessionOnly(route.path)) {
        const list = await t
          .http()
          .get('/v1/api-keys')
          .set(bearer(t.issueToken(a.userId)));
        expect(list.body.data.map((key: { id: string }) => key.id)).toContain(id);
      } else if (route.path.startsWith('/v1/webhooks')) {
        const list = await t.http().get('/v1/webhooks').set(bearer(a.apiKey));
        expect(list.body.data.map((hook: { id: string }) => hook.id)).toContain(id);
      } else if (route.path.startsWith('/v1/workspace/invitations')) {
        const list = await t.http().get('/v1/workspace/invitations').set(bearer(a.apiKey));
        const invitation = (list.body.data as Array<{ id: string; status: string }>).find(
          (item) => item.id === id,
        );
        expect(invitation?.status).toBe('pending');
      } else if (route.path.startsWith('/v1/workspace/members')) {
        expect(owner.status).toBe(200);
        expect(owner.body.data.role).toBe('owner');
      } else {
        expect(owner.status).toBe(200);
        if (route.path.startsWith('/v1/vocabularies')) expect(owner.body.data.name).toBe('A words');
      }
    },
  );

  it.each(listRoutes.map((route) => [route.operationId, route] as const))(
    "%s: workspace B never sees workspace A's items (also not by search or cursor)",
    async (_operationId, route) => {
      const queries =
        route.operationId === 'listTranscriptions' ? ['', '?search=secret-of-a', '?limit=100'] : [''];
      for (const query of queries) {
        const credential = sessionOnly(route.path) ? t.issueToken(b.userId) : b.apiKey;
        const response = await t.http().get(`${route.path}${query}`).set(bearer(credential));
        expect(response.status).toBe(200);
        expectMatchesSpec(response, route.operationId);
        const items = (assemblyAi(route.path) ? response.body.transcripts : response.body.data) as Array<{
          id: string;
        }>;
        expect(items.map((item) => item.id)).not.toContain(ofA[collection(route.path)]);
      }
      if (route.operationId === 'listTranscriptions') {
        // A's transcription id is no valid cursor for B.
        const response = await t
          .http()
          .get(`/v1/transcriptions?cursor=${ofA.transcriptions}`)
          .set(bearer(b.apiKey));
        expect({ status: response.status, slug: slugOf(response) }).toEqual({
          status: 422,
          slug: 'validation',
        });
      }
    },
  );

  it("workspace A's vocabulary cannot be attached to B's upload", async () => {
    const response = await t
      .http()
      .post('/v1/transcriptions')
      .set(bearer(b.apiKey))
      .field('vocabulary_id', ofA.vocabularies)
      .attach('file', Buffer.from('RIFF'), 'x.wav');
    expect(response.status).toBe(422);
    expect(slugOf(response)).toMatch(/validation|unsupported-format/);
    expectMatchesSpec(response, 'createTranscription');
  });
});

describe('JWT algorithm confusion (variants beyond test/e2e/auth.e2e-spec.ts)', () => {
  let t: TestApp;
  let workspace: ProvisionedWorkspace;
  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    workspace = await t.createWorkspace({ name: 'JWT confusion' });
  });
  afterAll(() => t.close());

  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = () => {
    const now = Math.floor(Date.now() / 1000);
    return { sub: workspace.userId, iat: now, exp: now + 60 };
  };
  /** A token signed by hand with HMAC-SHA* and the server's secret, whatever the header claims. */
  const handSigned = (header: Record<string, unknown>, hash: 'sha256' | 'sha384' | 'sha512' = 'sha256') => {
    const input = `${b64(header)}.${b64(claims())}`;
    return `${input}.${createHmac(hash, SECRET).update(input).digest('base64url')}`;
  };

  const cases: Array<[string, () => string]> = [
    ['HS384 with the right secret', () => sign(claims(), SECRET, { algorithm: 'HS384' })],
    [
      'alg "None" (capitalised) without signature',
      () => `${b64({ alg: 'None', typ: 'JWT' })}.${b64(claims())}.`,
    ],
    ['alg "NONE" with an HS256 signature appended', () => handSigned({ alg: 'NONE', typ: 'JWT' })],
    ['alg "none" with an HS256 signature appended', () => handSigned({ alg: 'none', typ: 'JWT' })],
    ['alg "hs256" (lower case) signed with HS256', () => handSigned({ alg: 'hs256', typ: 'JWT' })],
    ['no alg at all, HS256 signature', () => handSigned({ typ: 'JWT' })],
    ['alg HS256 header but an HS512 signature', () => handSigned({ alg: 'HS256', typ: 'JWT' }, 'sha512')],
    [
      'RS256 header, HMAC-signed with the HS secret as "public key" (classic confusion)',
      () => handSigned({ alg: 'RS256', typ: 'JWT' }),
    ],
    [
      'RS256 header, HMAC-signed with a PEM public key as the secret',
      () => {
        const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
        const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
        const input = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims())}`;
        return `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
      },
    ],
    [
      'ES256 signed with an EC key',
      () =>
        sign(claims(), generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, { algorithm: 'ES256' }),
    ],
    [
      'PS256 signed with an RSA key',
      () =>
        sign(claims(), generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, {
          algorithm: 'PS256',
        }),
    ],
    [
      'an embedded jwk header, signed with that embedded key',
      () => {
        const input = `${b64({ alg: 'HS256', typ: 'JWT', jwk: { kty: 'oct', k: 'bWFsbG9yeQ' } })}.${b64(claims())}`;
        return `${input}.${createHmac('sha256', Buffer.from('bWFsbG9yeQ', 'base64url')).update(input).digest('base64url')}`;
      },
    ],
    [
      'a kid pointing at a file',
      () => sign(claims(), SECRET, { algorithm: 'HS384', keyid: '../../../../dev/null' }),
    ],
    ['an empty signature with alg HS256', () => `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims())}.`],
    [
      'a sub of another shape (object)',
      () => sign({ ...claims(), sub: { id: workspace.userId } }, SECRET, { algorithm: 'HS256' }),
    ],
    ['a non-UUID sub', () => sign({ ...claims(), sub: "' OR 1=1 --" }, SECRET, { algorithm: 'HS256' })],
  ];

  it.each(cases)('%s is invalid-token', async (_name, token) => {
    const response = await t.http().get('/v1/account/profile').set(bearer(token()));
    expect(response.status).toBe(401);
    expect(slugOf(response)).toMatch(/^(invalid-token|user-not-found)$/);
    expectMatchesSpec(response, 'getProfile');
  });

  it('the control: a correct HS256 token is accepted', async () => {
    const response = await t
      .http()
      .get('/v1/account/profile')
      .set(bearer(handSigned({ alg: 'HS256', typ: 'JWT' })));
    expect(response.status).toBe(200);
  });
});

describe('SSRF: webhook targets refused with WEBHOOK_ALLOW_PRIVATE_TARGETS=false', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    key = (await t.createWorkspace({ name: 'SSRF' })).apiKey;
  });
  afterAll(() => t.close());

  // No request is ever sent to these: registration refuses them (and delivery re-checks before connecting).
  // https, so each one meets the address rules rather than the https-only rule.
  it.each([
    'https://127.0.0.1/hook',
    'https://127.1/hook',
    'https://2130706433/hook',
    'https://0x7f000001/hook',
    'https://0x7f.1/hook',
    'https://0177.0.0.1/hook',
    'https://017700000001/hook',
    'https://localhost/hook',
    'https://LOCALHOST./hook',
    'https://localhost:8080/hook',
    'https://[::1]/hook',
    'https://[0:0:0:0:0:0:0:1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:7f00:1]/hook',
    'https://[::ffff:169.254.169.254]/hook',
    'https://[2002:7f00:1::]/hook',
    'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
    'https://[64:ff9b:1::7f00:1]/hook',
    'https://[64:ff9b::a9fe:a9fe]/hook',
    'https://[::7f00:1]/hook',
    'https://[::ffff:0:7f00:1]/hook',
    'https://[fe80::1]/hook',
    'https://[fd00::1]/hook',
    'https://[::]/hook',
    'https://0.0.0.0/hook',
    'https://0/hook',
    'https://10.0.0.1/hook',
    'https://172.16.0.1/hook',
    'https://172.31.255.255/hook',
    'https://192.168.1.1/hook',
    'https://100.64.0.1/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://169.254.170.2/v2/credentials',
    'https://[fd00:ec2::254]/latest/meta-data/',
    'https://224.0.0.1/hook',
    'https://255.255.255.255/hook',
    // secretlint-disable-next-line @secretlint/secretlint-rule-basicauth -- a made-up credential the API must refuse
    'https://user:pass@example.org/hook',
    'http://93.184.216.34/hook', // deliveries are HTTPS POSTs
    'ftp://example.org/hook',
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_INFO',
    'javascript:alert(1)',
    'https://127.0.0.1%2509/hook',
  ])('refuses %s', async (url) => {
    const before = await t.http().get('/v1/webhooks').set(bearer(key));
    const response = await t
      .http()
      .post('/v1/webhooks')
      .set(bearer(key))
      .send({ url, events: ['balance.low'] });
    expect({ url, status: response.status, slug: slugOf(response) }).toEqual({
      url,
      status: 422,
      slug: 'validation',
    });
    expect(Object.keys(response.body.errors.fieldErrors)).toEqual(['url']);
    expectMatchesSpec(response, 'createWebhook');
    const after = await t.http().get('/v1/webhooks').set(bearer(key));
    expect(after.body.data).toHaveLength(before.body.data.length);
  });
});
