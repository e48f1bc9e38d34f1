/**
 * Property-based fuzzing of every operation of openapi.yaml: path ids, query strings, headers and JSON bodies
 * derived from the contract (valid ones by json-schema-faker, checked with Ajv) and broken on purpose. The
 * multipart variations of createTranscription live in uploads.fuzz-spec.ts.
 *
 * Invariants for every response: no 5xx, errors are problem+json with a documented slug, the response is one
 * the operation documents, and a rejected request writes nothing (rows of the workspace, stored files).
 * Reproduce a failure with the printed seed and path: FUZZ_SEED=<seed> FUZZ_PATH=<path> (FUZZ_SHRINK=1 to shrink).
 */
import { MAX_WEBHOOK_ENDPOINTS_PER_WORKSPACE } from '../../src/webhooks/webhook-endpoints.service';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import type { ProvisionedWorkspace } from '../../src/auth/provisioning/workspace-provisioning.service';
import { specRoutes, type SpecRoute } from '../support/openapi-contract';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { insertTranscription } from '../support/transcriptions';
import {
  conformsTo,
  expectInvariants,
  expectNothingWritten,
  fuzzParameters,
  jsonBodySchema,
  nastyString,
  memberBomb,
  slugOf,
  nestingBomb,
  privateStorageDir,
  queryParameters,
  schemaValue,
  type SentRequest,
  wrongJson,
  writtenState,
} from './fuzz-support';

const RUNS_PER_OPERATION = 70;
/** The operations documented with `security: []` (health and readiness, languages, dashboard sign-in). */
const PUBLIC_OPERATIONS = new Set([
  'acceptInvitation',
  'getHealth',
  'getReadiness',
  'listLanguages',
  'login',
  'signup',
  'refreshSession',
  'logout',
  'startSsoSignIn',
  'completeSsoSignIn',
]);
/** Dashboard operations: a user session only; an API key is refused with 403 `forbidden`. */
const SESSION_OPERATIONS = new Set([
  'listApiKeys',
  'createApiKey',
  'revokeApiKey',
  'getAccountSettings',
  'updateAccountSettings',
  'listWorkspaces',
  'activateWorkspace',
  'leaveWorkspace',
  // Owner-only (`sso:manage`), which no key scope grants: a key is refused 403 like on a dashboard operation.
  'getSsoConnection',
  'putSsoConnection',
  'deleteSsoConnection',
]);

type AuthChoice =
  'key-bearer' | 'key-header' | 'jwt' | 'none' | 'garbage' | 'duplicate' | 'other-workspace-key';
type IdChoice =
  | { kind: 'own'; index: number }
  | { kind: 'other-workspace'; index: number }
  | { kind: 'random-uuid' }
  | { kind: 'not-uuid'; raw: string }
  | { kind: 'traversal'; raw: string };
type QueryValue =
  | { kind: 'valid'; value: unknown }
  | { kind: 'invalid'; value: string }
  | { kind: 'repeated'; values: string[] }
  | { kind: 'nested'; value: string };
type BodyChoice =
  | { kind: 'none' }
  | { kind: 'valid'; value: unknown }
  | { kind: 'mutated'; value: unknown }
  | { kind: 'raw'; text: string; contentType: string; why: string; encoding?: string };

interface FuzzRequest {
  auth: AuthChoice;
  id: IdChoice;
  query: Record<string, QueryValue | undefined>;
  unknownQuery: [string, string] | null;
  extraHeaders: Record<string, string>;
  body: BodyChoice;
}

const authArbitrary = fc.constantFrom<AuthChoice>(
  'key-bearer',
  'key-bearer',
  'key-header',
  'jwt',
  'none',
  'garbage',
  'duplicate',
  'other-workspace-key',
);

const idArbitrary: fc.Arbitrary<IdChoice> = fc.oneof(
  { weight: 3, arbitrary: fc.nat({ max: 40 }).map((index) => ({ kind: 'own' as const, index })) },
  { weight: 2, arbitrary: fc.nat({ max: 40 }).map((index) => ({ kind: 'other-workspace' as const, index })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'random-uuid' as const }) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        nastyString.filter((value) => value.length > 0 && value.length < 2000),
        fc.uuid().map((uuid) => `${uuid}x`),
        fc.uuid().map((uuid) => uuid.replace(/-/g, '')),
        fc.constantFrom('0', '-1', 'null', '00000000-0000-0000-0000-00000000000g', '{id}', ' '),
      )
      .map((raw) => ({ kind: 'not-uuid' as const, raw })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '../../etc/passwd',
        '..%2F..%2Fetc%2Fpasswd',
        '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
        '..%252F..%252Fetc%252Fpasswd',
        '....//....//etc/passwd',
        '..\\..\\windows\\win.ini',
        '%E0%A4%A',
        '%',
        '%ZZ',
        '%00',
        '.',
        '..',
      )
      .map((raw) => ({ kind: 'traversal' as const, raw })),
  },
);

/** Values of a number-typed parameter that are wrong in every way a query string can be. */
const badScalar = fc.oneof(
  nastyString,
  fc.constantFrom(
    '0',
    '13',
    '101',
    '-5',
    '1.5',
    '1e2',
    '99999999999999999999999',
    '0x0A',
    ' 5',
    'Infinity',
    'true',
  ),
);

function queryArbitrary(
  parameters: ReturnType<typeof queryParameters>,
): fc.Arbitrary<Record<string, QueryValue | undefined>> {
  const entries = parameters.map((parameter) => {
    const valid = schemaValue(parameter.schema).map((value) => ({ kind: 'valid' as const, value }));
    const choice: fc.Arbitrary<QueryValue | undefined> = fc.oneof(
      { weight: parameter.required ? 3 : 4, arbitrary: parameter.required ? valid : fc.constant(undefined) },
      { weight: 3, arbitrary: valid },
      { weight: 3, arbitrary: badScalar.map((value) => ({ kind: 'invalid' as const, value })) },
      {
        weight: 1,
        arbitrary: fc
          .array(fc.oneof(badScalar, fc.constantFrom('1', '2', 'txt', 'queued')), {
            minLength: 2,
            maxLength: 3,
          })
          .map((values) => ({ kind: 'repeated' as const, values })),
      },
      {
        weight: 1,
        arbitrary: fc.string({ maxLength: 5 }).map((value) => ({ kind: 'nested' as const, value })),
      },
    );
    return [parameter.name, choice] as const;
  });
  return fc.record(Object.fromEntries(entries));
}

const headerArbitrary: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      pad: fc.integer({ min: 100, max: 6_000 }),
      idempotency: fc.oneof(
        fc.uuid(),
        fc.constantFrom('', 'not-a-uuid', 'gr\u00fcezi', 'x'.repeat(300), ' , ', '\t'),
      ),
      accept: fc.constantFrom('*/*', 'text/html', 'application/xml', 'application/problem+json', ''),
      contentType: fc.constantFrom(
        'text/plain',
        'application/json',
        'multipart/form-data',
        'x/x; charset=utf-7',
      ),
    },
    { requiredKeys: [] },
  )
  .map((chosen) => {
    const headers: Record<string, string> = {};
    if (chosen.pad !== undefined) headers['X-Fuzz-Pad'] = 'p'.repeat(chosen.pad);
    if (chosen.idempotency !== undefined) headers['Idempotency-Key'] = chosen.idempotency;
    if (chosen.accept !== undefined) headers.Accept = chosen.accept;
    if (chosen.contentType !== undefined) headers['Content-Type'] = chosen.contentType;
    return headers;
  });

function mutatedBody(schema: Record<string, unknown>): fc.Arbitrary<unknown> {
  const properties = Object.keys((schema.properties as Record<string, unknown>) ?? {});
  const valid = schemaValue(schema) as fc.Arbitrary<Record<string, unknown>>;
  return fc.oneof(
    // A member removed.
    fc.tuple(valid, fc.constantFrom(...properties)).map(([body, name]) => {
      const copy = { ...body };
      delete copy[name];
      return copy;
    }),
    // A member of the wrong type or shape.
    fc
      .tuple(valid, fc.constantFrom(...properties), wrongJson)
      .map(([body, name, value]) => ({ ...body, [name]: value })),
    // An unknown member.
    fc
      .tuple(valid, fc.string({ minLength: 1, maxLength: 12 }), wrongJson)
      // Names of Object.prototype members (`valueOf`, `constructor`…) slip past class-validator's whitelist
      // (reported, not fixed here); every other unknown name is refused.
      .filter(([, name]) => !properties.includes(name) && !(name in Object.prototype))
      .map(([body, name, value]) => ({ ...body, [name]: value })),
    // Not an object at all.
    wrongJson,
    // Text PostgreSQL cannot store (NUL) in a member that is otherwise fine.
    fc.tuple(valid, fc.constantFrom(...properties)).map(([body, name]) => ({
      ...body,
      [name]: Array.isArray(body[name]) ? ['a\u0000b'] : 'a\u0000b',
    })),
  );
}

function bodyArbitrary(route: SpecRoute): fc.Arbitrary<BodyChoice> {
  const schema = jsonBodySchema(route.method, route.path);
  const raw = (text: string, contentType: string, why: string): BodyChoice => ({
    kind: 'raw',
    text,
    contentType,
    why,
  });
  const broken: fc.Arbitrary<BodyChoice>[] = [
    fc
      .oneof(
        fc.constantFrom(
          '{',
          '{"name":',
          '[1,2',
          'nul',
          '{"a":1}}',
          "{'a':1}",
          '\u0000',
          '{"a":NaN}',
          '{"a":1,}',
        ),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).filter((text) => {
          try {
            JSON.parse(text);
            return false;
          } catch {
            return true;
          }
        }),
      )
      .map((text) => raw(text, 'application/json', 'broken JSON')),
    fc
      .tuple(
        fc.constantFrom(10, 1_000, 50_000, 400_000),
        fc.constantFrom<'array' | 'object'>('array', 'object'),
      )
      .map(([depth, kind]) =>
        raw(nestingBomb(depth, kind), 'application/json', `nesting bomb ${kind} ${depth}`),
      ),
    // Member bombs (131,000 keys blocked the event loop for 12.6 s), spread or in one object.
    fc
      .tuple(fc.constantFrom(1_001, 20_000, 131_000), fc.constantFrom<'one' | 'spread'>('one', 'spread'))
      .map(([members, shape]) =>
        raw(memberBomb(members, shape), 'application/json', `${members} members, ${shape}`),
      ),
    // Escaped lone surrogates (PostgreSQL jsonb refuses them) in values and keys, and a name of 100
    // emoji with variation selectors (100 characters to a validator, 200 to a varchar(100)).
    fc
      .constantFrom(
        '{"name":"\\ud800","words":["a"]}',
        '{"name":"x","words":["\\udc00"]}',
        '{"name":"x","words":["a\\ud83c"],"url":"http://x/\\ud800","events":["balance.low"]}',
        '{"\\udfff":1}',
        JSON.stringify({ name: '❤️'.repeat(100), words: ['a'] }),
      )
      .map((text) => raw(text, 'application/json', 'lone surrogate or wide characters')),
    // A Content-Encoding the bytes do not have.
    fc
      .tuple(fc.constantFrom('gzip', 'deflate', 'br', 'x-unknown'), fc.jsonValue({ maxDepth: 2 }))
      .map(([encoding, value]): BodyChoice => ({
        ...(raw(
          JSON.stringify(value) ?? 'null',
          'application/json',
          `Content-Encoding ${encoding} on plain JSON`,
        ) as {
          kind: 'raw';
          text: string;
          contentType: string;
          why: string;
        }),
        encoding,
      })),
    fc
      .constantFrom(1_100_000, 2_000_000)
      .map((size) =>
        raw(JSON.stringify({ name: 'n'.repeat(size), words: ['a'] }), 'application/json', `${size} bytes`),
      ),
    fc
      .tuple(
        fc.constantFrom(
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
          'application/xml',
          'application/json; charset=utf-16',
          'application/json; charset=latin-1',
          'application/jsonx',
          '',
        ),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map(([contentType, value]) =>
        raw(JSON.stringify(value) ?? 'null', contentType, `content type "${contentType}"`),
      ),
  ];
  if (route.method === 'GET' || route.method === 'DELETE' || !schema) {
    // Bodies where none is expected: ignored or refused, never a crash.
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant<BodyChoice>({ kind: 'none' }) },
      {
        weight: 1,
        arbitrary: fc
          .jsonValue({ maxDepth: 2 })
          .map((value) => raw(JSON.stringify(value) ?? 'null', 'application/json', 'JSON body')),
      },
      { weight: 2, arbitrary: fc.oneof(...broken) },
    );
  }
  return fc.oneof(
    { weight: 4, arbitrary: schemaValue(schema).map((value): BodyChoice => ({ kind: 'valid', value })) },
    { weight: 4, arbitrary: mutatedBody(schema).map((value): BodyChoice => ({ kind: 'mutated', value })) },
    { weight: 1, arbitrary: fc.constant<BodyChoice>({ kind: 'none' }) },
    { weight: 3, arbitrary: fc.oneof(...broken) },
  );
}

function requestArbitrary(route: SpecRoute): fc.Arbitrary<FuzzRequest> {
  const parameters = queryParameters(route.method, route.path);
  return fc.record({
    auth: authArbitrary,
    id: idArbitrary,
    query: queryArbitrary(parameters),
    unknownQuery: fc.option(
      fc.tuple(fc.constantFrom('foo', 'offset', 'page', '__proto__', 'limit[]'), fc.string({ maxLength: 8 })),
      { freq: 6 },
    ),
    extraHeaders: headerArbitrary,
    body: bodyArbitrary(route),
  });
}

interface Resources {
  transcriptions: string[];
  vocabularies: string[];
  webhooks: string[];
}

function resourceKind(path: string): keyof Resources | null {
  if (path.startsWith('/v1/transcriptions/{id}')) return 'transcriptions';
  if (path.startsWith('/v1/vocabularies/{id}')) return 'vocabularies';
  if (path.startsWith('/v1/webhooks/{id}')) return 'webhooks';
  return null;
}

describe('Contract fuzzing of every operation (paths, queries, headers, JSON bodies)', () => {
  let t: TestApp;
  let storage: ReturnType<typeof privateStorageDir>;
  let a: ProvisionedWorkspace;
  let b: ProvisionedWorkspace;
  const own: Resources = { transcriptions: [], vocabularies: [], webhooks: [] };
  const foreign: Resources = { transcriptions: [], vocabularies: [], webhooks: [] };

  async function seed(workspace: ProvisionedWorkspace, into: Resources): Promise<void> {
    for (let i = 0; i < 12; i++) {
      const status = i % 4 === 3 ? 'failed' : 'completed';
      const row = await insertTranscription(t, workspace.workspaceId, {
        status,
        originalFileName: i % 2 ? 'Sitzung über Grüezi.wav' : '../../evil\r\n"name".mp3',
        ...(status === 'failed'
          ? { resultText: null, resultJson: null, errorMessage: 'NO_SPOKEN_AUDIO: none' }
          : {}),
      });
      into.transcriptions.push(row.id);
      const vocabulary = await t
        .http()
        .post('/v1/vocabularies')
        .set(bearer(workspace.apiKey))
        .send({ name: `Vocabulary ${i}`, words: ['Kubernetes', 'Grüezi'] });
      into.vocabularies.push(vocabulary.body.data.id);
      // A workspace has at most MAX_WEBHOOK_ENDPOINTS_PER_WORKSPACE endpoints: seed fewer, so generated
      // creations meet both the 201 and (once full) the 422 webhook-endpoint-limit.
      if (i >= MAX_WEBHOOK_ENDPOINTS_PER_WORKSPACE - 2) continue;
      const webhook = await t
        .http()
        .post('/v1/webhooks')
        .set(bearer(workspace.apiKey))
        .send({ url: `http://127.0.0.1:9/hook-${i}`, events: ['balance.low'] });
      into.webhooks.push(webhook.body.data.id);
    }
  }

  beforeAll(async () => {
    storage = privateStorageDir();
    t = await startTestApp({ ROLE: 'api', STORAGE_DIR: storage.dir });
    a = await t.createWorkspace({ name: 'Fuzz A' });
    b = await t.createWorkspace({ name: 'Fuzz B' });
    await seed(a, own);
    await seed(b, foreign);
  });
  afterAll(async () => {
    await t.close();
    storage.remove();
  });

  function credentials(auth: AuthChoice): Record<string, string | string[]> {
    switch (auth) {
      case 'key-bearer':
        return bearer(a.apiKey);
      case 'key-header':
        return { 'X-API-KEY': a.apiKey };
      case 'jwt':
        return bearer(t.issueToken(a.userId));
      case 'none':
        return {};
      case 'garbage':
        return { Authorization: 'Bearer svc_live_' + 'Z'.repeat(40) };
      case 'duplicate':
        return { Authorization: [`Bearer ${a.apiKey}`, `Bearer ${b.apiKey}`] };
      case 'other-workspace-key':
        return bearer(b.apiKey);
    }
  }

  function pathFor(route: SpecRoute, id: IdChoice): string {
    const kind = resourceKind(route.path);
    if (!kind) return route.path;
    let segment: string;
    switch (id.kind) {
      case 'own':
        segment = own[kind][id.index % own[kind].length];
        break;
      case 'other-workspace':
        segment = foreign[kind][id.index % foreign[kind].length];
        break;
      case 'random-uuid':
        segment = randomUUID();
        break;
      case 'not-uuid':
        segment = encodeURIComponent(id.raw);
        break;
      case 'traversal':
        segment = id.raw;
        break;
    }
    return route.path.replace('{id}', segment);
  }

  function queryString(request: FuzzRequest): { text: string; valid: boolean } {
    const parts: string[] = [];
    // Unknown query parameters (cache busters) are ignored by contract; `limit[]` is no stranger: it is the
    // known `limit` sent as an array, which stays a 422.
    let valid = request.unknownQuery === null || request.unknownQuery[0] !== 'limit[]';
    const encode = (name: string, value: string) =>
      `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
    for (const [name, choice] of Object.entries(request.query)) {
      if (!choice) continue;
      switch (choice.kind) {
        case 'valid': {
          // A cursor must name a transcription of the workspace to be valid, not just any UUID.
          const value = name === 'cursor' ? own.transcriptions[0] : String(choice.value);
          parts.push(encode(name, value));
          break;
        }
        case 'invalid':
          valid = false;
          parts.push(encode(name, choice.value));
          break;
        case 'repeated':
          valid = false;
          for (const value of choice.values) parts.push(encode(name, value));
          break;
        case 'nested':
          valid = false;
          parts.push(`${encodeURIComponent(name)}[${encodeURIComponent(choice.value)}]=1`);
          break;
      }
    }
    if (request.unknownQuery) parts.push(encode(...request.unknownQuery));
    // A request head over 16 KB is answered 431 before any route runs (tested in request-leniency e2e).
    while (parts.join('&').length > 6_000) {
      parts.pop();
      valid = false;
    }
    return { text: parts.length ? `?${parts.join('&')}` : '', valid };
  }

  async function send(
    route: SpecRoute,
    request: FuzzRequest,
  ): Promise<{ response: Response; sent: SentRequest }> {
    const query = queryString(request);
    const path = pathFor(route, request.id) + query.text;
    let call = t.http()[route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete'](path);
    const headers: Record<string, string | string[]> = {
      ...request.extraHeaders,
      ...credentials(request.auth),
    };
    const body = request.body;
    if (body.kind === 'raw') headers['Content-Type'] = body.contentType;
    if (body.kind === 'raw' && body.encoding) headers['Content-Encoding'] = body.encoding;
    if (body.kind === 'valid' || body.kind === 'mutated') headers['Content-Type'] = 'application/json';
    if (body.kind === 'none') delete headers['Content-Type'];
    for (const [name, value] of Object.entries(headers)) {
      if (name === 'Content-Type' && value === '') continue;
      call = call.set(name, value as string);
    }
    if (body.kind === 'raw') call = call.send(body.text);
    if (body.kind === 'valid' || body.kind === 'mutated')
      call = call.send(JSON.stringify(body.value) ?? 'null');
    const response = await call.buffer(true).timeout(15_000);
    const note = [
      `auth=${request.auth}`,
      `id=${request.id.kind}`,
      `body=${body.kind}${body.kind === 'raw' ? `(${body.why})` : ''}`,
      body.kind === 'valid' || body.kind === 'mutated'
        ? (JSON.stringify(body.value) ?? '').slice(0, 300)
        : '',
    ].join(' ');
    return { response, sent: { method: route.method, path, note } };
  }

  const routes = specRoutes();

  it('covers every operation of openapi.yaml', () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
  });

  it.each(routes.map((route) => [route.operationId, route] as const))(
    `%s: ${RUNS_PER_OPERATION} generated requests keep every invariant`,
    async (_operationId, route) => {
      const schema = jsonBodySchema(route.method, route.path);
      await fc.assert(
        fc.asyncProperty(requestArbitrary(route), async (request) => {
          const before = await writtenState(t, a.workspaceId, storage.dir);
          const { response, sent } = await send(route, request);
          expectInvariants(response, route.operationId, sent);
          if (response.status >= 300) await expectNothingWritten(t, a.workspaceId, storage.dir, before, sent);

          const secured = !PUBLIC_OPERATIONS.has(route.operationId);
          const idRoute = resourceKind(route.path) !== null;
          const sessionOnly = SESSION_OPERATIONS.has(route.operationId);
          const authenticated = sessionOnly
            ? request.auth === 'jwt'
            : ['key-bearer', 'key-header', 'jwt', 'duplicate'].includes(request.auth);
          const body = request.body;
          const wellFormedBody = schema ? body.kind === 'valid' : body.kind === 'none';
          const where = `${sent.method} ${sent.path} [${sent.note}] answered ${response.status} ${response.text?.slice(0, 300)}`;

          // A raw `../` path (or one taken literally) names nothing: 404 whoever asks, unless the body was refused.
          if (request.id.kind === 'traversal' && idRoute) {
            const unauthenticated = request.auth === 'none' || request.auth === 'garbage';
            const expected =
              (body.kind !== 'none' && [400, 413, 415, 422].includes(response.status)) ||
              (unauthenticated && response.status === 401)
                ? response.status
                : 404;
            expect({ where, status: response.status }).toEqual({ where, status: expected });
            return;
          }
          // Without valid credentials nothing is done: 401, unless the body could not even be read (400, 413, 415
          // come from the body parser, which runs before the authentication guard).
          if (secured && (request.auth === 'none' || request.auth === 'garbage')) {
            const expected =
              body.kind !== 'none' && [400, 413, 415].includes(response.status) ? response.status : 401;
            expect({ where, status: response.status }).toEqual({ where, status: expected });
            return;
          }
          // A dashboard operation called with an API key is 403, unless the body could not even be read.
          if (sessionOnly && ['key-bearer', 'key-header', 'other-workspace-key'].includes(request.auth)) {
            const expected =
              body.kind !== 'none' && [400, 413, 415].includes(response.status) ? response.status : 403;
            expect({ where, status: response.status }).toEqual({ where, status: expected });
            return;
          }
          // An id that does not name a resource of this workspace is 404 (given an acceptable body and query:
          // a malformed query may be refused first, which tells nothing about the id, 422 for any of them).
          if (
            secured &&
            idRoute &&
            request.id.kind !== 'own' &&
            authenticated &&
            queryString(request).valid &&
            (wellFormedBody || route.method === 'GET' || route.method === 'DELETE')
          ) {
            if (body.kind !== 'raw')
              expect({ where, status: response.status }).toEqual({ where, status: 404 });
          }
          // Ajv is the oracle for JSON bodies: what the contract refuses is never accepted...
          // (Judged on the JSON that was sent: a member whose value is undefined is not in it.)
          if (
            schema &&
            body.kind === 'mutated' &&
            !conformsTo(schema, JSON.parse(JSON.stringify(body.value) ?? 'null'))
          ) {
            expect({ where, accepted: response.status < 300 }).toEqual({ where, accepted: false });
          }
          // ...and what it accepts is accepted, when nothing else in the request is off.
          if (
            schema &&
            body.kind === 'valid' &&
            authenticated &&
            request.auth !== 'duplicate' &&
            (!idRoute || request.id.kind === 'own') &&
            queryString(request).valid &&
            // An upload's audio must be real media (AssemblyAI's `audio_url` is fetched): the schema cannot say so.
            !['createTranscription', 'createAssemblyAiTranscript'].includes(route.operationId) &&
            // Generated credentials name no user: a well-formed sign-in is 401 invalid-credentials (or 429).
            route.operationId !== 'login'
          ) {
            expect(conformsTo(schema, body.value)).toBe(true);
            // `format: uri` is looser than the documented rule (an absolute http(s) URL that resolves).
            const urlRefused =
              route.operationId === 'createWebhook' &&
              response.status === 422 &&
              Object.keys(response.body.errors?.fieldErrors ?? {}).join() === 'url';
            // A valid body is still refused once the workspace has its maximum of webhook endpoints.
            const endpointsFull = slugOf(response) === 'webhook-endpoint-limit';
            // What a realtime session refuses beyond its schema: a tier that cannot stream or does not serve the
            // language, a vocabulary_id of no vocabulary of the workspace, a prompt PostgreSQL cannot store (NUL,
            // a lone surrogate).
            const sessionRefused =
              route.operationId === 'createRealtimeClientSecret' &&
              response.status === 422 &&
              Object.keys(response.body.errors?.fieldErrors ?? {}).every((field) =>
                /^session\.audio\.input\.transcription\.(model|language|vocabulary_id|prompt)$/.test(field),
              );
            // What the members rules refuse beyond the schema: the owner role given by a key (only an owner's
            // sign-in holds `members:owner`); an address the schema's `format: email` takes and the service's
            // stricter check does not; an allowed network that is no CIDR block (the schema says string).
            const ownerRefused =
              ['createInvitation', 'updateMember'].includes(route.operationId) &&
              response.status === 403 &&
              response.body.permission === 'members:owner';
            const fieldRefused = (operationId: string, field: RegExp) =>
              route.operationId === operationId &&
              response.status === 422 &&
              Object.keys(response.body.errors?.fieldErrors ?? {}).every((name) => field.test(name));
            const membersRefused =
              ownerRefused ||
              fieldRefused('createInvitation', /^email$/) ||
              fieldRefused('createApiKey', /^allowedNetworks(\[\d+\])?$/) ||
              // A generated issuer has no discovery document to read (nor is a secret stored to keep).
              fieldRefused('putSsoConnection', /^(issuer|clientSecret)$/);
            if (
              response.status !== 404 &&
              !urlRefused &&
              !endpointsFull &&
              !sessionRefused &&
              !membersRefused
            )
              expect({ where, status: response.status }).toEqual({
                where,
                status: route.method === 'POST' ? 201 : 200,
              });
          }
        }),
        fuzzParameters(RUNS_PER_OPERATION),
      );
    },
  );
});
