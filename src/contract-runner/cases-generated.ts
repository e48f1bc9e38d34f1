import { specRoutes } from '../openapi/openapi-contract';
import {
  conformsTo,
  fakedValue,
  jsonBodySchema,
  queryParameters,
  seededRandom,
  type JsonSchema,
} from '../openapi/request-examples';
import type { Credential, Exchange } from './http-client';
import type { CaseScope, RunContext } from './run-context';
import type { RunState } from './run-state';

interface Target {
  operationId: string;
  credential: 'key' | 'jwt';
  path?: Record<string, string>;
  /** Query members every request keeps (e.g. export `format`, so the controls are the ones read). */
  fixedQuery?: Record<string, string>;
  /** Only these query parameters are varied (those the fixed query makes the service read). */
  onlyQuery?: string[];
  /** Body members every request keeps (the webhook url: generated hosts would make the service resolve them). */
  fixedBody?: Record<string, unknown>;
  /**
   * Only the broken draws are sent: a valid one would create an endpoint that is active until the clean-up and
   * would get the workspace's real events, which without a receiver of the run's own must not leave.
   */
  brokenOnly?: boolean;
  /** A created object to remove at the end (its id from the answer). */
  cleanup?: (id: string) => Promise<unknown>;
}

/** A number per (seed, operation, purpose): the same --seed draws the same requests. */
function drawSeed(seed: number, ...parts: string[]): number {
  let hash = seed >>> 0;
  for (const character of parts.join('|')) hash = Math.imul(hash ^ character.charCodeAt(0), 0x01000193) >>> 0;
  return Math.floor(seededRandom(hash)() * 2 ** 31);
}

/** A value of another JSON type than `schema` allows: the "wrong type" of a member or parameter. */
function wrongType(schema: JsonSchema): unknown {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('string')) return types.includes('null') ? 12345 : { not: 'a string' };
  if (types.includes('integer') || types.includes('number')) return 'twelve';
  if (types.includes('boolean')) return 'yes';
  if (types.includes('array')) return 'not-an-array';
  if (types.includes('object')) return ['not', 'an', 'object'];
  return { unexpected: true };
}

/** In a query everything is text: only numbers, booleans and formats can have the wrong type there. */
function wrongQueryType(schema: JsonSchema): unknown {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('integer') || types.includes('number')) return 'twelve';
  if (types.includes('boolean')) return 'yes';
  if (schema.format === 'uuid') return 'not-a-uuid';
  return undefined;
}

/** A value outside the bounds `schema` sets, if it sets any. */
function outOfRange(schema: JsonSchema): unknown {
  if (typeof schema.maximum === 'number') return schema.maximum + 1;
  if (typeof schema.minimum === 'number') return schema.minimum - 1;
  if (typeof schema.maxLength === 'number') return 'x'.repeat(schema.maxLength + 1);
  if (typeof schema.minItems === 'number' && schema.minItems > 0) return [];
  if (Array.isArray(schema.enum)) return 'stt-contract-not-a-member';
  return undefined;
}

function fieldErrorsName(exchange: Exchange, name: string): boolean {
  const fieldErrors = (exchange.body as { errors?: { fieldErrors?: Record<string, unknown> } }).errors
    ?.fieldErrors;
  return (
    fieldErrors !== undefined &&
    Object.keys(fieldErrors).some(
      (field) => field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`),
    )
  );
}

function properties(schema: JsonSchema): Record<string, JsonSchema> {
  return (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
}

/** Members whose refusal the service reports as 422 `validation` naming the member. */
function expectRefusal(s: CaseScope, target: Target, answer: Exchange, name: string, what: string): void {
  if (target.operationId === 'exportTranscription' && name === 'format') {
    s.expect(answer, 422, 'invalid-format');
    return;
  }
  s.expect(answer, 422, 'validation');
  s.check(
    answer.status !== 422 || fieldErrorsName(answer, name),
    `${what}: errors.fieldErrors does not name ${name}`,
  );
}

/**
 * Requests derived from the contract: for every query parameter and JSON member, a wrong type and an
 * out-of-range value (each must be 422 naming it); then --max-examples requests json-schema-faker draws from the
 * schemas (seeded by --seed), each must get a documented answer below 500, and the same draws broken so that Ajv
 * rejects them, each must be refused (4xx).
 */
export async function generatedCases(run: RunContext, state: RunState): Promise<void> {
  const { mode } = run.options;
  const key: Credential = { kind: 'bearer', token: run.options.apiKey };
  const targets: Target[] = [
    { operationId: 'listTranscriptions', credential: 'key' },
    { operationId: 'getUsage', credential: 'key' },
    {
      operationId: 'createVocabulary',
      credential: 'key',
      cleanup: (id) => run.client.call('deleteVocabulary', { credential: key, path: { id } }),
    },
  ];
  if (state.vocabularyId)
    targets.push({ operationId: 'updateVocabulary', credential: 'key', path: { id: state.vocabularyId } });
  if (state.webhook) {
    const url = state.receiver?.publicUrl ?? `https://example.com/stt-contract/${state.tag}`;
    targets.push(
      { operationId: 'listWebhookDeliveries', credential: 'key', path: { id: state.webhook.id } },
      {
        operationId: 'updateWebhook',
        credential: 'key',
        path: { id: state.webhook.id },
        // Without a receiver the endpoint stays inactive, so nothing is ever sent to the placeholder.
        fixedBody: state.receiver ? { url } : { url, isActive: false },
      },
      {
        operationId: 'createWebhook',
        credential: 'key',
        fixedBody: { url },
        brokenOnly: !state.receiver,
        cleanup: (id) => run.client.call('deleteWebhook', { credential: key, path: { id } }),
      },
    );
  }
  if (state.transcriptionStatus === 'completed' && state.transcriptionId) {
    // A control the format does not read is ignored unchecked, so each format varies only its own.
    const reads: Record<string, string[]> = {
      srt: ['max_chars_per_line', 'max_lines', 'max_cue_seconds', 'speaker_labels'],
      txt: ['timestamps', 'speaker_labels'],
    };
    for (const [format, onlyQuery] of Object.entries(reads)) {
      targets.push({
        operationId: 'exportTranscription',
        credential: 'key',
        path: { id: state.transcriptionId },
        fixedQuery: { format },
        onlyQuery,
      });
    }
  }
  if (run.jwt && mode === 'full') {
    targets.push({ operationId: 'updateAccountSettings', credential: 'jwt' });
    const jwt: Credential = { kind: 'bearer', token: run.jwt };
    targets.push({
      operationId: 'createApiKey',
      credential: 'jwt',
      cleanup: (id) => run.client.call('revokeApiKey', { credential: jwt, path: { id } }),
    });
  }

  for (const target of targets) {
    if (!run.selected(target.operationId)) continue;
    const route = specRoutes().find((candidate) => candidate.operationId === target.operationId);
    if (!route) continue;
    const query = queryParameters(route.method, route.path).filter(
      (parameter) =>
        !(parameter.name in (target.fixedQuery ?? {})) &&
        (target.onlyQuery === undefined || target.onlyQuery.includes(parameter.name)),
    );
    const body = jsonBodySchema(route.method, route.path);
    const send = async (
      s: CaseScope,
      queryValues: Record<string, unknown>,
      json: unknown,
    ): Promise<Exchange> => {
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries({ ...target.fixedQuery, ...queryValues })) {
        if (value !== undefined)
          search.append(name, typeof value === 'string' ? value : JSON.stringify(value));
      }
      const answer = await s.call(target.operationId, {
        credential: s.credential(target.credential),
        path: target.path,
        rawQuery: search.toString(),
        json,
      });
      const created = (answer.body as { data?: { id?: unknown } } | undefined)?.data?.id;
      if (target.cleanup && answer.status === 201 && typeof created === 'string') {
        const cleanup = target.cleanup;
        run.onCleanup(`remove ${target.operationId} ${created}`, async () => {
          await cleanup(created);
        });
      }
      return answer;
    };
    const baseBody = body
      ? { ...(validBody(target.operationId, state) ?? {}), ...target.fixedBody }
      : undefined;

    const label = target.fixedQuery ? ` (${new URLSearchParams(target.fixedQuery).toString()})` : '';
    await run.case(
      target.operationId,
      `each parameter and member: wrong type, out of range → 422 naming it${label}`,
      async (s) => {
        for (const parameter of query) {
          for (const value of [wrongQueryType(parameter.schema), outOfRange(parameter.schema)]) {
            if (value === undefined) continue;
            const answer = await send(s, { [parameter.name]: value }, baseBody);
            expectRefusal(s, target, answer, parameter.name, `${parameter.name}=${JSON.stringify(value)}`);
          }
        }
        if (!body || !baseBody) return;
        for (const [name, schema] of Object.entries(properties(body))) {
          if (name in (target.fixedBody ?? {})) continue;
          for (const value of [wrongType(schema), outOfRange(schema)]) {
            if (value === undefined) continue;
            const answer = await send(s, {}, { ...baseBody, [name]: value });
            expectRefusal(s, target, answer, name, `${name}: ${JSON.stringify(value)}`);
          }
        }
      },
    );

    if (run.options.maxExamples === 0) continue;
    const querySchema: JsonSchema = {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(query.map((parameter) => [parameter.name, parameter.schema])),
      required: query.filter((parameter) => parameter.required).map((parameter) => parameter.name),
    };
    await run.case(
      target.operationId,
      `${run.options.maxExamples} generated requests (seed ${run.options.seed})${label}`,
      async (s) => {
        for (let example = 0; example < run.options.maxExamples; example++) {
          const queryValues =
            query.length > 0
              ? drawValid(querySchema, run.options.seed, target.operationId, 'query', example)
              : {};
          const drawn = body
            ? drawValid(body, run.options.seed, target.operationId, 'body', example)
            : undefined;
          const json =
            drawn === undefined ? undefined : { ...(drawn as Record<string, unknown>), ...target.fixedBody };
          if (!target.brokenOnly) {
            const answer = await send(s, (queryValues ?? {}) as Record<string, unknown>, json);
            s.check(
              answer.status < 500,
              `example ${example} (replay: --seed ${run.options.seed}): ${answer.status} to a request the schema allows: ${JSON.stringify({ query: queryValues, json })}`,
            );
          }
          if (!body || json === undefined) continue;
          const broken = breakBody(
            body,
            json,
            drawSeed(run.options.seed, target.operationId, 'broken', String(example)),
          );
          if (broken === undefined || conformsTo(body, broken)) continue;
          const refused = await send(s, (queryValues ?? {}) as Record<string, unknown>, broken);
          s.check(
            refused.status >= 400 && refused.status < 500,
            `example ${example} (replay: --seed ${run.options.seed}): ${refused.status} to a body the schema rejects: ${JSON.stringify(broken)}`,
          );
        }
      },
    );
  }
}

/** A draw the schema accepts (Ajv as the oracle: the faker's formats are looser now and then), or undefined. */
function drawValid(
  schema: JsonSchema,
  seed: number,
  operationId: string,
  kind: string,
  example: number,
): unknown {
  for (let attempt = 0; attempt < 10; attempt++) {
    const value = fakedValue(schema, drawSeed(seed, operationId, kind, String(example), String(attempt)));
    if (conformsTo(schema, value)) return value;
  }
  return undefined;
}

/** The body with one member replaced by a value of the wrong type, chosen by `seed`. */
function breakBody(schema: JsonSchema, body: Record<string, unknown>, seed: number): unknown {
  const names = Object.keys(properties(schema));
  if (names.length === 0) return undefined;
  const name = names[Math.floor(seededRandom(seed)() * names.length)];
  return { ...body, [name]: wrongType(properties(schema)[name]) };
}

/** A body the operation accepts, the base the member cases vary one member of. */
function validBody(operationId: string, state: RunState): Record<string, unknown> | undefined {
  switch (operationId) {
    case 'createVocabulary':
      return { name: state.tag, words: ['contract'] };
    case 'updateVocabulary':
      return { name: state.tag };
    case 'createWebhook':
      return { events: ['transcription.completed'] };
    case 'updateWebhook':
      return {};
    case 'updateAccountSettings':
      return {};
    case 'createApiKey':
      return { name: state.tag };
    default:
      return undefined;
  }
}
