import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkResponse,
  ContractViolation,
  errorSlugs,
  jsonPath,
  expectEventFrameMatchesSpec,
  expectMatchesSpec,
  expectWebhookMatchesSpec,
  openApiDocument,
  operationIds,
  specRoutes,
  type ContractResponse,
} from './openapi-contract';

const ID = '0b7c6f9e-3f7a-4c1e-9d7e-2f4a8b1c5d6e';
const OTHER_ID = 'f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b';
const ERRORS = 'http://localhost:3000/errors';
const NOW = '2026-01-31T12:00:00.000Z';

const RATE_LIMIT = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': '42' };
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', ...RATE_LIMIT };
const PROBLEM_HEADERS = { 'content-type': 'application/problem+json; charset=utf-8', ...RATE_LIMIT };

/** The operations the other modules' tests call by id, with their routes. */
const EXPECTED_ROUTES = [
  ['GET', '/v1/health', 'getHealth'],
  ['GET', '/v1/health/ready', 'getReadiness'],
  ['GET', '/v1/languages', 'listLanguages'],
  ['GET', '/v1/tiers', 'listTiers'],
  ['GET', '/v1/account/balance', 'getBalance'],
  ['GET', '/v1/account/usage', 'getUsage'],
  ['GET', '/v1/account/profile', 'getProfile'],
  ['GET', '/v1/account/settings', 'getAccountSettings'],
  ['PATCH', '/v1/account/settings', 'updateAccountSettings'],
  ['POST', '/v1/auth/login', 'login'],
  ['POST', '/v1/auth/signup', 'signup'],
  ['POST', '/v1/auth/refresh', 'refreshSession'],
  ['POST', '/v1/auth/logout', 'logout'],
  ['GET', '/v1/auth/sso/start', 'startSsoSignIn'],
  ['GET', '/v1/auth/sso/callback', 'completeSsoSignIn'],
  ['GET', '/v1/workspace/sso', 'getSsoConnection'],
  ['PUT', '/v1/workspace/sso', 'putSsoConnection'],
  ['DELETE', '/v1/workspace/sso', 'deleteSsoConnection'],
  ['POST', '/v1/auth/invitations/accept', 'acceptInvitation'],
  ['GET', '/v1/workspace/members', 'listMembers'],
  ['GET', '/v1/workspace/members/{id}', 'getMember'],
  ['PATCH', '/v1/workspace/members/{id}', 'updateMember'],
  ['DELETE', '/v1/workspace/members/{id}', 'removeMember'],
  ['DELETE', '/v1/workspace/membership', 'leaveWorkspace'],
  ['GET', '/v1/workspace/invitations', 'listInvitations'],
  ['POST', '/v1/workspace/invitations', 'createInvitation'],
  ['DELETE', '/v1/workspace/invitations/{id}', 'revokeInvitation'],
  ['POST', '/v1/workspace/invitations/{id}/resend', 'resendInvitation'],
  ['GET', '/v1/workspaces', 'listWorkspaces'],
  ['POST', '/v1/workspaces/{id}/activate', 'activateWorkspace'],
  ['GET', '/v1/api-keys', 'listApiKeys'],
  ['POST', '/v1/api-keys', 'createApiKey'],
  ['DELETE', '/v1/api-keys/{id}', 'revokeApiKey'],
  ['GET', '/v1/api-keys/{id}/requests', 'listApiKeyRequests'],
  ['GET', '/v1/audit-events', 'listAuditEvents'],
  ['GET', '/v1/audit-events/export', 'exportAuditEvents'],
  ['POST', '/v1/transcriptions', 'createTranscription'],
  ['POST', '/v1/audio/transcriptions', 'createOpenAiTranscription'],
  ['POST', '/v1/listen', 'createDeepgramTranscription'],
  ['POST', '/v2/upload', 'createAssemblyAiUpload'],
  ['POST', '/v2/transcript', 'createAssemblyAiTranscript'],
  ['GET', '/v2/transcript', 'listAssemblyAiTranscripts'],
  ['GET', '/v2/transcript/{id}', 'getAssemblyAiTranscript'],
  ['DELETE', '/v2/transcript/{id}', 'deleteAssemblyAiTranscript'],
  ['GET', '/v2/transcript/{id}/sentences', 'getAssemblyAiSentences'],
  ['GET', '/v2/transcript/{id}/paragraphs', 'getAssemblyAiParagraphs'],
  ['GET', '/v2/transcript/{id}/word-search', 'searchAssemblyAiTranscript'],
  ['GET', '/v2/transcript/{id}/{format}', 'getAssemblyAiSubtitles'],
  ['GET', '/v3/token', 'createAssemblyAiStreamingToken'],
  ['GET', '/v1/transcriptions', 'listTranscriptions'],
  ['GET', '/v1/transcriptions/{id}', 'getTranscription'],
  ['PATCH', '/v1/transcriptions/{id}', 'updateTranscription'],
  ['DELETE', '/v1/transcriptions/{id}', 'deleteTranscription'],
  ['GET', '/v1/transcriptions/{id}/status', 'getTranscriptionStatus'],
  ['GET', '/v1/transcriptions/{id}/events', 'streamTranscriptionEvents'],
  ['GET', '/v1/transcriptions/{id}/export', 'exportTranscription'],
  ['GET', '/v1/transcriptions/{id}/audio', 'getTranscriptionAudio'],
  ['GET', '/v1/transcriptions/{id}/search', 'searchTranscript'],
  ['GET', '/v1/realtime', 'openRealtimeSession'],
  ['POST', '/v1/realtime/client_secrets', 'createRealtimeClientSecret'],
  ['GET', '/v1/vocabularies', 'listVocabularies'],
  ['POST', '/v1/vocabularies', 'createVocabulary'],
  ['GET', '/v1/vocabularies/{id}', 'getVocabulary'],
  ['PUT', '/v1/vocabularies/{id}', 'updateVocabulary'],
  ['DELETE', '/v1/vocabularies/{id}', 'deleteVocabulary'],
  ['GET', '/v1/webhooks', 'listWebhooks'],
  ['POST', '/v1/webhooks', 'createWebhook'],
  ['DELETE', '/v1/webhooks/{id}', 'deleteWebhook'],
  // Webhook operations (the `webhooks:` section: one per event a receiver can get).
  ['PATCH', '/v1/webhooks/{id}', 'updateWebhook'],
  ['GET', '/v1/webhooks/{id}/deliveries', 'listWebhookDeliveries'],
  ['POST', '/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', 'redeliverWebhookDelivery'],
  ['POST', '/v1/webhooks/{id}/test', 'testWebhook'],
  ['POST', '/v1/webhooks/{id}/rotate-secret', 'rotateWebhookSecret'],
] as const;

/** The Errors table of the interface specification. */
const SPEC_SLUGS: Record<string, number> = {
  unauthorized: 401,
  'invalid-api-key': 401,
  'invalid-token': 401,
  'user-not-found': 401,
  'insufficient-balance': 402,
  forbidden: 403,
  'not-found': 404,
  'missing-file': 400,
  'not-ready': 400,
  'unsupported-format': 422,
  'file-too-large': 422,
  'invalid-model': 422,
  'invalid-speaker-hint': 422,
  'invalid-format': 422,
  validation: 422,
  'rate-limit': 429,
  internal: 500,
};

// Sign-in operations are how a browser gets a credential: they cannot require one.
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
/** Never counted against a rate limit (a load balancer's probe must not get 429): no 429, no rate-limit headers. */
const UNMETERED_OPERATIONS = new Set(['getHealth', 'getReadiness']);

function problem(slug: string, status: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: `${ERRORS}/${slug}`, title: slug, status, detail: `detail of ${slug}`, ...extra };
}

function problemResponse(
  slug: string,
  status: number,
  extra: Record<string, unknown> = {},
): ContractResponse {
  return { status, headers: PROBLEM_HEADERS, body: problem(slug, status, extra) };
}

function transcription(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: ID,
    model: 'standard',
    status: 'completed',
    progress: 100,
    originalFileName: 'interview.mp3',
    fileSize: 123456,
    duration: 61.2,
    language: null,
    detectedLanguage: 'de',
    resultText: 'Grüezi mitenand.',
    wordCount: 2,
    speakerCount: 1,
    cost: 0.003062,
    errorMessage: null,
    createdOn: NOW,
    completedAt: NOW,
    ...overrides,
  };
}

function transcriptionDetail(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return transcription({
    mimeType: 'audio/mpeg',
    userId: OTHER_ID,
    directoryId: OTHER_ID,
    resultJson: {
      words: [
        { word: 'Grüezi', start: 0.1, end: 0.5, speaker: 'SPEAKER_00' },
        { word: 'mitenand.', start: 0.6, end: 1.1 },
      ],
    },
    ...overrides,
  });
}

function rejection(run: () => void): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ContractViolation);
    return (error as Error).message;
  }
  throw new Error('expected a ContractViolation, but the response was accepted');
}

function record(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  return value as Record<string, unknown>;
}

function operationById(operationId: string): Record<string, unknown> {
  const route = specRoutes().find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`no operation ${operationId}`);
  const pathItem = record(record(openApiDocument().paths)[route.path]);
  return record(pathItem[route.method.toLowerCase()]);
}

describe('openapi.yaml contract helper', () => {
  describe('accepts responses the document describes', () => {
    it('getHealth 200 and listLanguages 200', () => {
      expectMatchesSpec(
        { status: 200, headers: JSON_HEADERS, body: { status: 'ok', timestamp: NOW, version: '1.0.0' } },
        'getHealth',
      );
      const schemas = record(record(openApiDocument().components).schemas);
      const codes = record(schemas.LanguageCode).enum as string[];
      const data = codes.map((code) => ({ code, name: `Language ${code}` }));
      expectMatchesSpec({ status: 200, headers: JSON_HEADERS, body: { data, count: 99 } }, 'listLanguages');
    });

    it('getHealth 200 without rate-limit headers (Redis down) is still fine', () => {
      expectMatchesSpec(
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: { status: 'ok', timestamp: NOW, version: '1.0.0' },
        },
        'getHealth',
      );
    });

    it('createTranscription 202 with and without progress 0, and its problems', () => {
      const accepted = {
        id: ID,
        status: 'queued',
        model: 'premium',
        originalFileName: 'a.wav',
        createdOn: NOW,
      };
      expectMatchesSpec(
        { status: 202, headers: JSON_HEADERS, body: { data: accepted } },
        'createTranscription',
      );
      expectMatchesSpec(
        { status: 202, headers: JSON_HEADERS, body: { data: { ...accepted, progress: 0 } } },
        'createTranscription',
      );
      expectMatchesSpec(problemResponse('missing-file', 400), 'createTranscription');
      expectMatchesSpec(
        problemResponse('insufficient-balance', 402, {
          balance: 0.004,
          freeRemaining: 0,
          minimumBalance: 0.01,
        }),
        'createTranscription',
      );
      expectMatchesSpec(problemResponse('idempotency-key-in-flight', 409), 'createTranscription');
      expectMatchesSpec(problemResponse('unsupported-media-type', 415), 'createTranscription');
      for (const slug of ['unsupported-format', 'file-too-large', 'invalid-model', 'invalid-speaker-hint']) {
        expectMatchesSpec(problemResponse(slug, 422), 'createTranscription');
      }
      expectMatchesSpec(
        problemResponse('validation', 422, {
          errors: { fieldErrors: { language: ['must be auto or a supported code'] }, formErrors: [] },
        }),
        'createTranscription',
      );
    });

    it('getTranscription 200 (detail), listTranscriptions 200, status 200, delete 204', () => {
      expectMatchesSpec(
        { status: 200, headers: JSON_HEADERS, body: { data: transcriptionDetail() } },
        'getTranscription',
      );
      expectMatchesSpec(
        {
          status: 200,
          headers: JSON_HEADERS,
          body: {
            data: transcriptionDetail({
              status: 'queued',
              progress: 0,
              duration: null,
              resultText: null,
              resultJson: null,
              wordCount: null,
              speakerCount: null,
              cost: null,
              completedAt: null,
              userId: null,
              detectedLanguage: null,
            }),
          },
        },
        'getTranscription',
      );
      expectMatchesSpec(
        { status: 200, headers: JSON_HEADERS, body: { data: [transcription()], cursor: ID, hasMore: true } },
        'listTranscriptions',
      );
      expectMatchesSpec(
        { status: 200, headers: JSON_HEADERS, body: { data: [], cursor: null, hasMore: false } },
        'listTranscriptions',
      );
      expectMatchesSpec(
        {
          status: 200,
          headers: JSON_HEADERS,
          body: { data: { id: ID, status: 'processing', progress: 40 } },
        },
        'getTranscriptionStatus',
      );
      expectMatchesSpec({ status: 204, headers: RATE_LIMIT, body: {}, text: '' }, 'deleteTranscription');
      expectMatchesSpec(problemResponse('not-found', 404), 'deleteTranscription');
    });

    it('exportTranscription: text, json and docx downloads with Content-Disposition; not-ready; invalid-format', () => {
      const disposition = { 'content-disposition': 'attachment; filename="interview.txt"' };
      expectMatchesSpec(
        {
          status: 200,
          headers: { 'content-type': 'text/plain; charset=utf-8', ...disposition, ...RATE_LIMIT },
          body: {},
          text: 'Grüezi mitenand.\n',
        },
        'exportTranscription',
      );
      expectMatchesSpec(
        {
          status: 200,
          headers: {
            'content-type': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
            ...disposition,
            ...RATE_LIMIT,
          },
          body: Buffer.from('PK'),
        },
        'exportTranscription',
      );
      const document = {
        id: ID,
        originalFileName: 'interview.mp3',
        model: 'standard',
        language: null,
        detectedLanguage: 'de',
        duration: 1.2,
        speakerCount: 1,
        wordCount: 2,
        createdOn: NOW,
        completedAt: NOW,
        text: 'Grüezi mitenand.',
        words: [{ word: 'Grüezi', start: 0.1, end: 0.5, speaker: null }],
        segments: [{ speaker: null, start: 0.1, end: 1.1, text: 'Grüezi mitenand.' }],
      };
      expectMatchesSpec(
        {
          status: 200,
          headers: { 'content-type': 'application/json; charset=utf-8', ...disposition, ...RATE_LIMIT },
          body: document,
          text: JSON.stringify(document),
        },
        'exportTranscription',
      );
      expectMatchesSpec(problemResponse('not-ready', 400), 'exportTranscription');
      expectMatchesSpec(problemResponse('invalid-format', 422), 'exportTranscription');
    });

    it('streamTranscriptionEvents 200 as text/event-stream, and its frames', () => {
      expectMatchesSpec(
        {
          status: 200,
          headers: { 'content-type': 'text/event-stream', ...RATE_LIMIT },
          body: {},
          text: 'data: {"status":"completed","progress":100}\n\n',
        },
        'streamTranscriptionEvents',
      );
      expectEventFrameMatchesSpec({ status: 'processing', progress: 40 });
      expect(rejection(() => expectEventFrameMatchesSpec({ status: 'processing' }))).toMatch(/progress/);
    });

    it('vocabularies, webhooks and account bodies', () => {
      const vocabulary = { id: ID, name: 'Products', words: ['Kubernetes'], createdOn: NOW };
      expectMatchesSpec(
        { status: 201, headers: JSON_HEADERS, body: { data: vocabulary } },
        'createVocabulary',
      );
      expectMatchesSpec(
        { status: 200, headers: JSON_HEADERS, body: { data: [vocabulary] } },
        'listVocabularies',
      );
      expectMatchesSpec(
        problemResponse('validation', 422, {
          errors: { fieldErrors: {}, formErrors: ['Send at least one of name and words.'] },
        }),
        'updateVocabulary',
      );
      const endpoint = {
        id: ID,
        url: 'https://example.org/hooks',
        events: ['transcription.completed'],
        isActive: true,
        createdOn: NOW,
      };
      expectMatchesSpec(
        { status: 201, headers: JSON_HEADERS, body: { data: { ...endpoint, secret: 'whsec_abc' } } },
        'createWebhook',
      );
      expectMatchesSpec({ status: 200, headers: JSON_HEADERS, body: { data: [endpoint] } }, 'listWebhooks');
      expectMatchesSpec(
        {
          status: 200,
          headers: JSON_HEADERS,
          body: {
            data: {
              balance: 12.5,
              freeTranscriptionsRemaining: 3,
              autoReloadEnabled: false,
              autoReloadThreshold: null,
              autoReloadAmount: null,
            },
          },
        },
        'getBalance',
      );
      expectMatchesSpec(
        {
          status: 200,
          headers: JSON_HEADERS,
          body: {
            data: {
              months: [
                {
                  month: '2026-01',
                  standardMinutes: 10,
                  premiumMinutes: 2.5,
                  standardCost: 0.03,
                  premiumCost: 0.01125,
                  count: 4,
                },
              ],
              summary: { totalTranscriptions: 4, totalMinutes: 12.5, totalCost: 0.04125 },
            },
          },
        },
        'getUsage',
      );
      expectMatchesSpec(
        {
          status: 200,
          headers: JSON_HEADERS,
          body: {
            data: {
              id: ID,
              email: 'ada@example.org',
              name: null,
              preferredLanguage: 'de',
              createdOn: NOW,
              directory: {
                id: OTHER_ID,
                name: 'Ada',
                slug: 'ada',
                balance: 1,
                freeTranscriptionsRemaining: 0,
              },
            },
          },
        },
        'getProfile',
      );
    });

    it('the common problems: 401, 403, 429 with Retry-After, 500 with errorId, 503', () => {
      for (const slug of ['unauthorized', 'invalid-api-key', 'invalid-token', 'user-not-found']) {
        expectMatchesSpec(problemResponse(slug, 401), 'getBalance');
      }
      expectMatchesSpec(problemResponse('forbidden', 403), 'listVocabularies');
      expectMatchesSpec(
        {
          status: 429,
          headers: { ...PROBLEM_HEADERS, 'retry-after': '17' },
          body: problem('rate-limit', 429),
        },
        'listLanguages',
      );
      expectMatchesSpec(problemResponse('internal', 500, { errorId: OTHER_ID }), 'getHealth');
      expectMatchesSpec(
        {
          status: 503,
          headers: { 'content-type': 'application/problem+json', 'retry-after': '5' },
          body: problem('service-unavailable', 503),
        },
        'getProfile',
      );
    });

    it('webhook deliveries', () => {
      const headers = {
        'content-type': 'application/json',
        'x-service-timestamp': '1769860800',
        'x-service-signature': 'a'.repeat(64),
        'x-service-delivery-id': OTHER_ID,
      };
      expectWebhookMatchesSpec(
        {
          headers,
          body: {
            event: 'transcription.completed',
            timestamp: '1769860800',
            data: { id: ID, model: 'standard', status: 'completed', duration: 61.2, completedAt: NOW },
          },
        },
        'transcription.completed',
      );
      expectWebhookMatchesSpec(
        {
          headers,
          body: {
            event: 'transcription.failed',
            timestamp: '1769860800',
            data: { id: ID, status: 'failed', errorMessage: 'NO_SPOKEN_AUDIO: silence', failedAt: NOW },
          },
        },
        'transcription.failed',
      );
      expectWebhookMatchesSpec(
        {
          headers,
          body: {
            event: 'balance.low',
            timestamp: '1769860800',
            data: { balance: 0.5, threshold: 1, currency: 'EUR' },
          },
        },
        'balance.low',
      );
      const { 'x-service-signature': _dropped, ...unsigned } = headers;
      expect(
        rejection(() =>
          expectWebhookMatchesSpec(
            {
              headers: unsigned,
              body: { event: 'balance.low', timestamp: '1', data: { balance: 0, threshold: 1 } },
            },
            'balance.low',
          ),
        ),
      ).toMatch(/X-Service-Signature is missing[\s\S]*currency/);
    });
  });

  describe('rejects responses the document does not describe', () => {
    it('an undocumented status', () => {
      const message = rejection(() => expectMatchesSpec(problemResponse('not-found', 404), 'getHealth'));
      expect(message).toMatch(/getHealth \(GET \/v1\/health\) answered 404.*does not document/);
      expect(
        rejection(() =>
          expectMatchesSpec({ status: 200, headers: RATE_LIMIT, body: {} }, 'deleteVocabulary'),
        ),
      ).toMatch(/does not document/);
    });

    it('a missing required field', () => {
      const { cost: _cost, ...withoutCost } = transcription();
      const message = rejection(() =>
        expectMatchesSpec(
          { status: 200, headers: JSON_HEADERS, body: { data: [withoutCost], cursor: null, hasMore: false } },
          'listTranscriptions',
        ),
      );
      expect(message).toMatch(/body\/data\/0 must have required property 'cost'/);
    });

    it('an extra field, including the detail-only fields in the list and secret in the webhook list', () => {
      expect(
        rejection(() =>
          expectMatchesSpec(
            {
              status: 200,
              headers: JSON_HEADERS,
              body: { data: [transcriptionDetail()], cursor: null, hasMore: false },
            },
            'listTranscriptions',
          ),
        ),
      ).toMatch(/additional properties.*resultJson/);
      expect(
        rejection(() =>
          expectMatchesSpec(
            {
              status: 200,
              headers: JSON_HEADERS,
              body: { data: transcriptionDetail({ internalPath: '/tmp/x' }) },
            },
            'getTranscription',
          ),
        ),
      ).toMatch(/internalPath/);
      expect(
        rejection(() =>
          expectMatchesSpec(
            {
              status: 200,
              headers: JSON_HEADERS,
              body: {
                data: [
                  {
                    id: ID,
                    url: 'https://example.org/h',
                    events: ['balance.low'],
                    isActive: true,
                    createdOn: NOW,
                    secret: 's',
                  },
                ],
              },
            },
            'listWebhooks',
          ),
        ),
      ).toMatch(/secret/);
      expect(
        rejection(() =>
          expectMatchesSpec(problemResponse('not-found', 404, { stack: 'Error: at x' }), 'getVocabulary'),
        ),
      ).toMatch(/stack/);
    });

    it('a wrong content type, above all a problem sent as application/json', () => {
      const message = rejection(() =>
        expectMatchesSpec(
          { status: 404, headers: JSON_HEADERS, body: problem('not-found', 404) },
          'getTranscription',
        ),
      );
      expect(message).toMatch(/Content-Type application\/json is not documented.*application\/problem\+json/);
      expect(
        rejection(() =>
          expectMatchesSpec(
            {
              status: 200,
              headers: { ...RATE_LIMIT, 'content-disposition': 'attachment' },
              body: {},
              text: 'x',
            },
            'exportTranscription',
          ),
        ),
      ).toMatch(/Content-Type is missing/);
    });

    it('a missing rate-limit header, Retry-After on 429 or Content-Disposition on export', () => {
      const { 'x-ratelimit-remaining': _remaining, ...withoutRemaining } = JSON_HEADERS;
      expect(
        rejection(() =>
          expectMatchesSpec(
            { status: 200, headers: withoutRemaining, body: { data: [], cursor: null, hasMore: false } },
            'listTranscriptions',
          ),
        ),
      ).toMatch(/required response header x-ratelimit-remaining is missing/);
      expect(rejection(() => expectMatchesSpec(problemResponse('rate-limit', 429), 'getBalance'))).toMatch(
        /Retry-After is missing/,
      );
      expect(
        rejection(() =>
          expectMatchesSpec(
            {
              status: 200,
              headers: { 'content-type': 'text/vtt', ...RATE_LIMIT },
              body: {},
              text: 'WEBVTT\n',
            },
            'exportTranscription',
          ),
        ),
      ).toMatch(/Content-Disposition is missing/);
      expect(
        rejection(() =>
          expectMatchesSpec(
            { status: 204, headers: { ...RATE_LIMIT, 'x-ratelimit-reset': 'soon' }, body: {} },
            'deleteWebhook',
          ),
        ),
      ).toMatch(/x-ratelimit-reset="soon" must be integer/);
    });

    it('a slug that does not belong to the status, and problems without their extensions', () => {
      expect(rejection(() => expectMatchesSpec(problemResponse('not-found', 401), 'getProfile'))).toMatch(
        /pattern/,
      );
      expect(
        rejection(() => expectMatchesSpec(problemResponse('validation', 422), 'createVocabulary')),
      ).toMatch(/required property 'errors'/);
      expect(
        rejection(() =>
          expectMatchesSpec(
            problemResponse('insufficient-balance', 402, { balance: 0 }),
            'createTranscription',
          ),
        ),
      ).toMatch(/freeRemaining/);
      expect(rejection(() => expectMatchesSpec(problemResponse('internal', 500), 'getHealth'))).toMatch(
        /errorId/,
      );
    });

    it('a body on 204, bad formats and enums, and unknown operations', () => {
      expect(
        rejection(() =>
          expectMatchesSpec({ status: 204, headers: RATE_LIMIT, body: { ok: true } }, 'deleteTranscription'),
        ),
      ).toMatch(/expected no body/);
      expect(
        rejection(() =>
          expectMatchesSpec(
            {
              status: 200,
              headers: JSON_HEADERS,
              body: { data: { id: 'abc', status: 'done', progress: 101 } },
            },
            'getTranscriptionStatus',
          ),
        ),
      ).toMatch(/format[\s\S]*uuid[\s\S]*allowedValues[\s\S]*<= 100/);
      expect(rejection(() => expectMatchesSpec(problemResponse('not-found', 404), 'getNothing'))).toMatch(
        /no operation "getNothing"/,
      );
    });
  });
});

describe('findings (what the contract runner reports)', () => {
  it('name the JSON path of the member, the header or the status', () => {
    const { cost: _cost, ...withoutCost } = transcription();
    const missing = checkResponse(
      { status: 200, headers: JSON_HEADERS, body: { data: [withoutCost], cursor: null, hasMore: false } },
      'listTranscriptions',
    );
    expect(missing.findings.map((finding) => finding.path)).toEqual(['$.data[0].cost']);
    const { 'x-ratelimit-limit': _limit, ...withoutLimit } = JSON_HEADERS;
    expect(
      checkResponse(
        { status: 200, headers: withoutLimit, body: { data: [], cursor: null, hasMore: false } },
        'listTranscriptions',
      ).findings,
    ).toEqual([
      { path: 'header x-ratelimit-limit', message: 'required response header x-ratelimit-limit is missing' },
    ]);
    expect(checkResponse(problemResponse('not-found', 418), 'getHealth').findings[0].path).toBe('status');
    expect(
      checkResponse(
        { status: 404, headers: JSON_HEADERS, body: problem('not-found', 404) },
        'getTranscription',
      ).findings[0].path,
    ).toBe('header Content-Type');
  });

  it('write paths with brackets for indexes and odd member names', () => {
    expect(jsonPath('/data/0/cost')).toBe('$.data[0].cost');
    expect(jsonPath('/errors/fieldErrors/words[3]')).toBe('$.errors.fieldErrors["words[3]"]');
    expect(jsonPath('', 'balance')).toBe('$.balance');
    expect(jsonPath('/a~1b')).toBe('$["a/b"]');
  });
});

describe('openapi.yaml content', () => {
  it('has exactly the agreed operations on the agreed routes', () => {
    expect(specRoutes()).toEqual(
      expect.arrayContaining(
        EXPECTED_ROUTES.map(([method, path, operationId]) => ({ method, path, operationId })),
      ),
    );
    expect(operationIds().sort()).toEqual(EXPECTED_ROUTES.map(([, , operationId]) => operationId).sort());
  });

  it('defines every slug of the specification and of docs/decisions.md, with the same status', () => {
    const document = openApiDocument();
    const types = (document['x-problem-types'] as Array<{ slug: string; status: number }>).map(
      ({ slug, status }) => [slug, status],
    );
    const statusBySlug = Object.fromEntries(types) as Record<string, number>;
    const decisions = readFileSync(join(__dirname, '..', '..', 'docs', 'decisions.md'), 'utf8');
    const decisionSlugs = [...decisions.matchAll(/^\| `([a-z-]+)` \| (\d{3}) \|/gm)].map((match) => [
      match[1],
      Number(match[2]),
    ]);
    expect(decisionSlugs.length).toBeGreaterThanOrEqual(7);
    for (const [slug, status] of [...Object.entries(SPEC_SLUGS), ...decisionSlugs]) {
      expect({ slug, status: statusBySlug[slug as string] }).toEqual({ slug, status });
    }
    expect(new Set(errorSlugs()).size).toBe(errorSlugs().length);
    const description = String(record(document.info).description);
    for (const slug of errorSlugs()) expect(description).toContain(`| \`${slug}\` | ${statusBySlug[slug]} |`);
  });

  it('uses only defined slugs in response schemas, and mentions each slug in some operation or response', () => {
    const text = readFileSync(join(__dirname, '..', '..', 'openapi.yaml'), 'utf8');
    const known = new Set(errorSlugs());
    const used = [...text.matchAll(/pattern: \/\(?([a-z|-]+)\)?\$/g)].flatMap((match) => match[1].split('|'));
    expect(used.length).toBeGreaterThan(10);
    for (const slug of used) expect(known).toContain(slug);
    for (const slug of known) expect(used).toContain(slug);
  });

  /** A compatibility route accepts its vendor's scheme first (and no cookie: it is a write); the rest inherit. */
  const ASSEMBLYAI_SECURITY = [{ assemblyAiKey: [] }, { bearerAuth: [] }, { apiKeyHeader: [] }];
  const OWN_SECURITY: Record<string, unknown> = {
    createDeepgramTranscription: [{ deepgramToken: [] }, { bearerAuth: [] }, { apiKeyHeader: [] }],
    ...Object.fromEntries(
      EXPECTED_ROUTES.filter(([, path]) => /^\/v[23]\//.test(path)).map(([, , id]) => [
        id,
        ASSEMBLYAI_SECURITY,
      ]),
    ),
  };

  it('documents 429 (except where unmetered), 431, 500 and 503 everywhere, 401 and 403 on every authenticated operation', () => {
    for (const operationId of operationIds()) {
      const operation = operationById(operationId);
      const statuses = Object.keys(record(operation.responses));
      expect({ operationId, statuses }).toEqual({
        operationId,
        statuses: expect.arrayContaining(['431', '500', '503']) as unknown,
      });
      expect({ operationId, documents429: statuses.includes('429') }).toEqual({
        operationId,
        documents429: !UNMETERED_OPERATIONS.has(operationId),
      });
      if (PUBLIC_OPERATIONS.has(operationId)) {
        expect(operation.security).toEqual([]);
      } else {
        expect({ operationId, security: operation.security }).toEqual({
          operationId,
          security: OWN_SECURITY[operationId],
        });
        expect({ operationId, statuses }).toEqual({
          operationId,
          statuses: expect.arrayContaining(['401', '403']) as unknown,
        });
      }
      if (
        specRoutes()
          .find((route) => route.operationId === operationId)
          ?.path.includes('{id}')
      ) {
        expect({ operationId, statuses }).toEqual({
          operationId,
          statuses: expect.arrayContaining(['404']) as unknown,
        });
      }
    }
    expect(openApiDocument().security).toEqual([
      { bearerAuth: [] },
      { apiKeyHeader: [] },
      { sessionCookie: [] },
    ]);
  });

  it('declares the rate-limit headers on every response, and Retry-After on 429 and 503', () => {
    const deref = (value: unknown): Record<string, unknown> => {
      let current = record(value);
      while (typeof current.$ref === 'string') {
        current = record(
          current.$ref
            .slice(2)
            .split('/')
            .reduce<unknown>((node, segment) => record(node)[segment], openApiDocument()),
        );
      }
      return current;
    };
    for (const operationId of operationIds()) {
      for (const [status, response] of Object.entries(record(operationById(operationId).responses))) {
        const headers = Object.keys(record(deref(response).headers ?? {})).map((name) => name.toLowerCase());
        // A WebSocket upgrade (101) is answered by the realtime gateway before the HTTP rate limiter runs.
        const expected =
          UNMETERED_OPERATIONS.has(operationId) || status === '101'
            ? []
            : ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
        if (status === '429' || status === '503') expected.push('retry-after');
        expect({ operationId, status, headers }).toEqual({
          operationId,
          status,
          headers: expect.arrayContaining(expected) as unknown,
        });
      }
    }
  });

  it('links name existing operations and fill every path parameter they need', () => {
    const routes = new Map(specRoutes().map((route) => [route.operationId, route.path]));
    const links: Array<[string, Record<string, unknown>]> = [];
    const collect = (value: unknown, where: string): void => {
      if (Array.isArray(value)) value.forEach((item, index) => collect(item, `${where}/${index}`));
      if (typeof value !== 'object' || value === null) return;
      for (const [key, item] of Object.entries(value)) {
        if (key === 'links')
          for (const [name, link] of Object.entries(record(item)))
            links.push([`${where}/${name}`, record(link)]);
        else collect(item, `${where}/${key}`);
      }
    };
    collect(openApiDocument().paths, '#/paths');
    collect(record(openApiDocument().components).responses, '#/components/responses');
    const targets = links.map(([, link]) => link.operationId);
    for (const operationId of [
      'getTranscription',
      'getTranscriptionStatus',
      'streamTranscriptionEvents',
      'exportTranscription',
      'deleteTranscription',
      'getVocabulary',
      'deleteVocabulary',
      'updateWebhook',
      'deleteWebhook',
      'listWebhookDeliveries',
      'testWebhook',
      'rotateWebhookSecret',
      'redeliverWebhookDelivery',
      'revokeApiKey',
    ]) {
      expect(targets).toContain(operationId);
    }
    for (const [where, link] of links) {
      const path = routes.get(String(link.operationId));
      expect({ where, path }).toEqual({ where, path: expect.any(String) });
      const needed = [...String(path).matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
      expect({ where, parameters: Object.keys(record(link.parameters)).sort() }).toEqual({
        where,
        parameters: needed,
      });
    }
  });

  it('states the decisions where the specification is silent', () => {
    const description = String(record(openApiDocument().info).description);
    for (const phrase of [
      'Decisions where the specification is silent',
      'newest first by `createdOn`',
      '`cursor` is the `id` of the last',
      'never 400',
      'HS256',
      '`sub`',
      '`exp`',
      'get 403 only from `getProfile`',
      '0.006 EUR',
      'micro-EUR',
      'MINIMUM_BALANCE_EUR',
      '`: heartbeat`',
      'JOB_ATTEMPTS',
      'neither `name` nor `words`',
      'de-duplicated case-insensitively',
      '500,000,000 bytes',
      'low-balance-threshold',
      'errorId',
    ]) {
      expect(description).toContain(phrase);
    }
  });
});
