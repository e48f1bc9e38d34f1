import { openApiDocument, specRoutes } from '../openapi/openapi-contract';
import type { CallOptions } from './http-client';
import { silentWav, uploadForm } from './cases-transcriptions';
import type { RunContext } from './run-context';
import { unknownId, type RunState } from './run-state';

type Template = Omit<CallOptions, 'credential'>;

/** Operations documented with `security: []`. */
export function publicOperations(): Set<string> {
  const paths = openApiDocument().paths as Record<
    string,
    Record<string, { operationId?: string; security?: unknown[] }>
  >;
  const ids = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (
        operation &&
        Array.isArray(operation.security) &&
        operation.security.length === 0 &&
        operation.operationId
      ) {
        ids.add(operation.operationId);
      }
    }
  }
  return ids;
}

/**
 * A request each operation accepts apart from the part a case varies (credential, id): valid bodies and query,
 * so that the answer is about that part and not a validation refusal. `ids` fills the path parameters.
 */
export function validRequest(operationId: string, state: RunState, ids: (kind: string) => string): Template {
  switch (operationId) {
    case 'createTranscription':
    case 'createOpenAiTranscription':
      return { form: uploadForm(silentWav(0.3), `${state.tag}-refused.wav`) };
    case 'createDeepgramTranscription':
    case 'createAssemblyAiUpload':
      return { raw: { body: silentWav(0.3), contentType: 'application/octet-stream' } };
    case 'createAssemblyAiTranscript':
      return { json: { audio_url: 'https://example.com/stt-contract.wav' } };
    case 'searchAssemblyAiTranscript':
      return { path: { id: ids('transcription') }, query: { words: 'contract' } };
    case 'createAssemblyAiStreamingToken':
      return { query: { expires_in_seconds: '60' } };
    case 'getAssemblyAiSubtitles':
      return { path: { id: ids('transcription'), format: 'srt' } };
    case 'createVocabulary':
      return { json: { name: state.tag, words: ['contract'] } };
    case 'updateVocabulary':
      return { path: { id: ids('vocabulary') }, json: { name: state.tag } };
    case 'createWebhook':
      return { json: { url: 'https://example.com/stt-contract', events: ['transcription.completed'] } };
    case 'updateWebhook':
      return { path: { id: ids('webhook') }, json: { isActive: false } };
    case 'redeliverWebhookDelivery':
      return { path: { id: ids('webhook'), deliveryId: ids('delivery') } };
    case 'exportTranscription':
      return { path: { id: ids('transcription') }, query: { format: 'txt' } };
    case 'createApiKey':
      return { json: { name: state.tag } };
    case 'createRealtimeClientSecret':
      return { json: { expires_after: { seconds: 10 } } };
    case 'updateAccountSettings':
      return { json: { lowBalanceThreshold: 1 } };
    case 'revokeApiKey':
    case 'listApiKeyRequests':
      return { path: { id: ids('api-key') } };
    case 'updateMember':
      return { path: { id: ids('member') }, json: { role: 'viewer' } };
    case 'getMember':
    case 'removeMember':
      return { path: { id: ids('member') } };
    case 'createInvitation':
      return { json: { email: `${state.tag}@example.com`, role: 'viewer' } };
    case 'revokeInvitation':
    case 'resendInvitation':
      return { path: { id: ids('invitation') } };
    case 'activateWorkspace':
      return { path: { id: ids('workspace') } };
    case 'acceptInvitation':
      return { json: { token: `inv_${state.tag}`, password: 'stt-contract password' } };
    case 'putSsoConnection':
      return {
        json: {
          issuer: 'https://login.example.com',
          clientId: state.tag,
          clientSecret: 'stt-contract secret',
          allowedDomains: ['example.com'],
        },
      };
    case 'startSsoSignIn':
      return { query: { workspace: unknownId() } };
    case 'updateTranscription':
      return { path: { id: ids('transcription') }, json: { speakerNames: {} } };
    case 'searchTranscript':
      return { path: { id: ids('transcription') }, query: { q: 'contract' } };
    default: {
      const route = specRoutes().find((candidate) => candidate.operationId === operationId);
      const kind = route?.path.startsWith('/v1/vocabularies')
        ? 'vocabulary'
        : route?.path.startsWith('/v1/webhooks')
          ? 'webhook'
          : 'transcription';
      return route?.path.includes('{id}') ? { path: { id: ids(kind) } } : {};
    }
  }
}

/** Session (dashboard) operations on an id: an API key is refused with 403 before the id is looked up. */
const SESSION_OPERATIONS_ON_AN_ID = new Set(['revokeApiKey', 'listApiKeyRequests', 'activateWorkspace']);

/** The run's own object of each kind, for the tenant-isolation cases. */
function ownId(state: RunState, kind: string): string | undefined {
  switch (kind) {
    case 'vocabulary':
      return state.vocabularyId;
    case 'webhook':
      return state.webhook?.id;
    case 'delivery':
      return state.deliveryId;
    case 'transcription':
      return state.transcriptionId;
    default:
      return undefined;
  }
}

/**
 * Cases every operation gets from its documented shape: no credential (401), an unknown key (401), unknown and
 * malformed ids (404), and another workspace's key on the run's own objects (404: tenant isolation).
 */
export async function genericCases(run: RunContext, state: RunState): Promise<void> {
  const open = publicOperations();
  // The compatibility routes answer in their vendor's error shape (checked against our contract all the same).
  const vendorShaped = (operationId: string): boolean =>
    operationId === 'createOpenAiTranscription' ||
    operationId === 'createDeepgramTranscription' ||
    /AssemblyAi/.test(operationId);
  for (const { operationId, path } of specRoutes()) {
    if (!open.has(operationId)) {
      await run.case(operationId, 'no credential: 401', async (s) => {
        const answer = await s.call(operationId, {
          ...validRequest(operationId, state, () => unknownId()),
          credential: s.credential('none'),
        });
        if (vendorShaped(operationId)) s.expect(answer, 401);
        else s.expect(answer, 401, 'unauthorized');
      });
      await run.case(operationId, 'an unknown API key: 401', async (s) => {
        const answer = await s.call(operationId, {
          ...validRequest(operationId, state, () => unknownId()),
          credential: s.credential('unknown-key'),
        });
        if (vendorShaped(operationId)) s.expect(answer, 401);
        else s.expect(answer, 401, 'invalid-api-key');
      });
    }
    if (!path.includes('{')) continue;
    const session = SESSION_OPERATIONS_ON_AN_ID.has(operationId);
    await run.case(operationId, 'unknown ids and ids that are not UUIDs: 404 not-found', async (s) => {
      const credential = s.credential(session ? 'jwt' : 'key');
      for (const id of [unknownId(), 'not-a-uuid', '12345']) {
        const answer = await s.call(operationId, {
          ...validRequest(operationId, state, () => id),
          credential,
        });
        if (vendorShaped(operationId)) s.expect(answer, 404);
        else s.expect(answer, 404, 'not-found');
      }
    });
    if (session) continue;
    await run.case(
      operationId,
      'another workspace’s key on the run’s objects: 404 (tenant isolation)',
      async (s) => {
        const credential = s.credential('key2');
        const missing: string[] = [];
        const template = validRequest(operationId, state, (kind) => {
          const id = ownId(state, kind);
          if (id === undefined) missing.push(kind);
          return id ?? unknownId();
        });
        if (missing.length > 0) return s.skip(`the run has no ${missing.join(', ')} of its own`);
        const answer = await s.call(operationId, { ...template, credential });
        if (vendorShaped(operationId)) s.expect(answer, 404);
        else s.expect(answer, 404, 'not-found');
      },
    );
  }
  await run.case(
    'listTranscriptions',
    'another workspace’s key does not list the run’s transcription',
    async (s) => {
      const own = state.transcriptionId;
      if (!own) return s.skip('the run has no transcription of its own');
      const answer = await s.call('listTranscriptions', {
        credential: s.credential('key2'),
        query: { search: state.tag },
      });
      s.expect(answer, 200);
      const ids = ((answer.body as { data?: Array<{ id: string }> }).data ?? []).map((item) => item.id);
      s.check(!ids.includes(own), `$.data: another workspace lists ${own}`);
    },
  );
}
