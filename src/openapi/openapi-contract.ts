/**
 * Contract checks against the hand-written openapi.yaml: the one implementation behind the e2e tests'
 * expectMatchesSpec (test/support/openapi-contract.ts re-exports it) and the contract runner QA points at a
 * deployment (src/contract-runner). Both see the same findings for the same response.
 *
 * Ajv's draft 2020-12 build validates bodies (OpenAPI 3.1 schemas are 2020-12 schemas). The whole document is
 * registered as one schema so that `#/components/...` references resolve exactly as they are written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

export interface ContractResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text?: string;
}

export interface SpecRoute {
  /** Upper case: GET, POST, PUT, DELETE, ... */
  method: string;
  /** As written in the document, with `{id}` placeholders. */
  path: string;
  operationId: string;
}

export interface WebhookDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** Thrown on every contract violation; the message lists all findings at once. */
export class ContractViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContractViolation';
  }
}

type JsonObject = Record<string, unknown>;

interface LocatedObject {
  /** JSON pointer (unencoded segments joined with `/`, each escaped per RFC 6901) of `value` in the document. */
  pointer: string;
  value: JsonObject;
}

interface IndexedOperation {
  method: string;
  path: string;
  operationId: string;
  pointer: string;
  operation: JsonObject;
}

const SPEC_FILE = join(__dirname, '..', '..', 'openapi.yaml');
const DOCUMENT_ID = 'https://contract.invalid/openapi.yaml';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;
const BODY_PREVIEW_LENGTH = 600;

interface LoadedContract {
  document: JsonObject;
  ajv: Ajv2020;
  operations: Map<string, IndexedOperation>;
  validators: Map<string, ValidateFunction>;
}

let loaded: LoadedContract | undefined;

function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function childPointer(pointer: string, ...segments: string[]): string {
  return [pointer, ...segments.map(escapePointerSegment)].join('/');
}

function contract(): LoadedContract {
  if (loaded) return loaded;
  const parsed: unknown = parse(readFileSync(SPEC_FILE, 'utf8'));
  if (!isRecord(parsed)) throw new Error(`${SPEC_FILE} does not hold a YAML mapping`);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  for (const openApiOnlyFormat of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password']) {
    ajv.addFormat(openApiOnlyFormat, true);
  }
  ajv.addSchema(parsed, DOCUMENT_ID);
  loaded = { document: parsed, ajv, operations: indexOperations(parsed), validators: new Map() };
  return loaded;
}

function indexOperations(document: JsonObject): Map<string, IndexedOperation> {
  const operations = new Map<string, IndexedOperation>();
  const paths = isRecord(document.paths) ? document.paths : {};
  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isRecord(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isRecord(operation) || typeof operation.operationId !== 'string') continue;
      if (operations.has(operation.operationId)) {
        throw new Error(`openapi.yaml: operationId ${operation.operationId} is used twice`);
      }
      operations.set(operation.operationId, {
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId,
        pointer: childPointer('#', 'paths', path, method),
        operation,
      });
    }
  }
  return operations;
}

/** Follows `$ref`s to local components until a plain object is reached. */
function resolve(document: JsonObject, located: LocatedObject): LocatedObject {
  let current = located;
  for (let hops = 0; typeof current.value.$ref === 'string'; hops += 1) {
    const reference = current.value.$ref;
    if (hops > 20 || !reference.startsWith('#/'))
      throw new Error(`openapi.yaml: cannot follow $ref ${reference}`);
    let target: unknown = document;
    for (const segment of reference.slice(2).split('/')) {
      target = isRecord(target) ? target[unescapePointerSegment(segment)] : undefined;
    }
    if (!isRecord(target)) throw new Error(`openapi.yaml: $ref ${reference} points at nothing`);
    current = { pointer: reference, value: target };
  }
  return current;
}

function validatorAt(pointer: string): ValidateFunction {
  const { ajv, validators } = contract();
  const cached = validators.get(pointer);
  if (cached) return cached;
  const encoded = pointer
    .slice(1)
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
  const validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${encoded}` });
  validators.set(pointer, validate);
  return validate;
}

/** One thing wrong with a response: where (a JSON path into the body, or the header / status) and what. */
export interface ContractFinding {
  /** `$.data.balance` for the body, `header x-ratelimit-limit`, `header Content-Type`, `status`. */
  path: string;
  message: string;
}

/** `/data/0/cost` (an Ajv instance path) as the JSON path `$.data[0].cost`. */
export function jsonPath(instancePath: string, ...more: string[]): string {
  const segments = [
    ...instancePath
      .split('/')
      .slice(1)
      .map((segment) => unescapePointerSegment(segment)),
    ...more,
  ];
  return segments.reduce(
    (path, segment) =>
      /^\d+$/.test(segment)
        ? `${path}[${segment}]`
        : /^[A-Za-z_$][\w$]*$/.test(segment)
          ? `${path}.${segment}`
          : `${path}[${JSON.stringify(segment)}]`,
    '$',
  );
}

function describeErrors(
  errors: ErrorObject[] | null | undefined,
  where: string,
  root?: string,
): ContractFinding[] {
  return (errors ?? []).map((error) => {
    const at = `${where}${error.instancePath}`;
    const params = error.params as Record<string, unknown>;
    const extra =
      error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties'
        ? ` (${JSON.stringify(error.params)})`
        : error.keyword === 'enum' || error.keyword === 'const'
          ? ` (${JSON.stringify(error.params)})`
          : '';
    const member =
      typeof params.missingProperty === 'string'
        ? params.missingProperty
        : typeof params.additionalProperty === 'string'
          ? params.additionalProperty
          : typeof params.unevaluatedProperty === 'string'
            ? params.unevaluatedProperty
            : undefined;
    const path = root ?? jsonPath(error.instancePath, ...(member === undefined ? [] : [member]));
    return { path, message: `${at} ${error.message ?? error.keyword}${extra} [schema ${error.schemaPath}]` };
  });
}

function render(findings: ContractFinding[]): string {
  return findings.map((finding) => `  - ${finding.message} (at ${finding.path})`).join('\n');
}

function headerValue(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

/** Header values are text; integer and number schemas are checked on the parsed number. */
function coerceHeader(raw: string, schema: unknown): unknown {
  if (!isRecord(schema)) return raw;
  // Linear (one optional group after the digits); flagged only by its shape.
  // eslint-disable-next-line security/detect-unsafe-regex
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(raw.trim())) {
    return Number(raw.trim());
  }
  return raw;
}

function checkHeaders(
  document: JsonObject,
  headersObject: unknown,
  headersPointer: string,
  actual: Record<string, string | string[] | undefined>,
  problems: ContractFinding[],
  location: 'header' | 'response header',
): void {
  if (!isRecord(headersObject)) return;
  for (const [name, definition] of Object.entries(headersObject)) {
    if (!isRecord(definition) || name.toLowerCase() === 'content-type') continue;
    const header = resolve(document, { pointer: childPointer(headersPointer, name), value: definition });
    const value = headerValue(actual, name);
    if (value === undefined) {
      if (header.value.required === true)
        problems.push({ path: `header ${name}`, message: `required ${location} ${name} is missing` });
      continue;
    }
    if (!isRecord(header.value.schema)) continue;
    const validate = validatorAt(childPointer(header.pointer, 'schema'));
    if (!validate(coerceHeader(value, header.value.schema))) {
      problems.push(
        ...describeErrors(validate.errors, `${location} ${name}=${JSON.stringify(value)}`, `header ${name}`),
      );
    }
  }
}

function mediaTypeOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const raw = headerValue(headers, 'content-type');
  return raw?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function matchMediaType(actual: string, documented: string[]): string | undefined {
  const exact = documented.find((candidate) => candidate.toLowerCase() === actual);
  if (exact) return exact;
  return documented.find((candidate) => {
    const [type, subtype] = candidate.toLowerCase().split('/');
    return (type === '*' && subtype === '*') || (subtype === '*' && actual.startsWith(`${type}/`));
  });
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function isEmptyBody(response: ContractResponse): boolean {
  if (response.text !== undefined && response.text !== '') return false;
  const { body } = response;
  if (body === undefined || body === null || body === '') return true;
  if (Buffer.isBuffer(body)) return body.length === 0;
  return isRecord(body) && Object.keys(body).length === 0;
}

function jsonBody(response: ContractResponse): { ok: true; value: unknown } | { ok: false; reason: string } {
  const { body, text } = response;
  const parsedAlready = body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body);
  const emptyObjectFromNonJson =
    isRecord(body) && Object.keys(body).length === 0 && text !== undefined && text !== '{}';
  if (parsedAlready && !emptyObjectFromNonJson) return { ok: true, value: body };
  const source = typeof text === 'string' ? text : Buffer.isBuffer(body) ? body.toString('utf8') : body;
  if (typeof source !== 'string') return { ok: false, reason: 'the body is missing' };
  try {
    return { ok: true, value: JSON.parse(source) as unknown };
  } catch {
    return { ok: false, reason: `the body is not JSON: ${preview(source)}` };
  }
}

function preview(value: unknown): string {
  let rendered: string;
  if (typeof value === 'string') rendered = value;
  else if (Buffer.isBuffer(value)) rendered = `<${value.length} bytes>`;
  else {
    try {
      rendered = JSON.stringify(value) ?? String(value);
    } catch {
      rendered = String(value);
    }
  }
  return rendered.length > BODY_PREVIEW_LENGTH ? `${rendered.slice(0, BODY_PREVIEW_LENGTH)}…` : rendered;
}

function findResponse(
  operation: IndexedOperation,
  status: number,
): { key: string; definition: unknown } | undefined {
  const responses = isRecord(operation.operation.responses) ? operation.operation.responses : {};
  for (const key of [String(status), `${String(status).charAt(0)}XX`, 'default']) {
    if (key in responses) return { key, definition: responses[key] };
  }
  return undefined;
}

function indexedOperation(operationId: string): IndexedOperation {
  const operation = contract().operations.get(operationId);
  if (!operation) {
    throw new ContractViolation(
      `openapi.yaml has no operation "${operationId}". Known: ${[...contract().operations.keys()].join(', ')}`,
    );
  }
  return operation;
}

/** What checkResponse found: the findings, and the heading and body preview a report quotes. */
export interface ResponseCheck {
  findings: ContractFinding[];
  /** `getBalance (GET /v1/account/balance) answered 200` */
  heading: string;
  /** The documented response key the answer was checked against (`200`, `4XX`, `default`), if any. */
  responseKey?: string;
  bodyPreview: string;
}

/**
 * Everything that keeps the response from being one openapi.yaml documents for the operation: an undocumented
 * status, an undocumented media type (problems are application/problem+json), a JSON body invalid against the
 * schema, a required response header (rate-limit headers, Retry-After, Content-Disposition) missing or invalid.
 * Bodies of non-JSON media types (event streams, text exports, docx) are not inspected.
 */
export function checkResponse(response: ContractResponse, operationId: string): ResponseCheck {
  const { document } = contract();
  const operation = indexedOperation(operationId);
  const heading = `${operationId} (${operation.method} ${operation.path}) answered ${response.status}`;
  const bodyPreview = preview(response.text ?? response.body);
  const found = findResponse(operation, response.status);
  if (!found || !isRecord(found.definition)) {
    const documented = Object.keys(
      isRecord(operation.operation.responses) ? operation.operation.responses : {},
    );
    return {
      heading,
      bodyPreview,
      findings: [
        {
          path: 'status',
          message: `${response.status}, a status openapi.yaml does not document for it (documented: ${documented.join(', ')})`,
        },
      ],
    };
  }
  const definition = resolve(document, {
    pointer: childPointer(operation.pointer, 'responses', found.key),
    value: found.definition,
  });
  const problems: ContractFinding[] = [];
  checkHeaders(
    document,
    definition.value.headers,
    childPointer(definition.pointer, 'headers'),
    response.headers,
    problems,
    'response header',
  );

  const content = isRecord(definition.value.content) ? definition.value.content : undefined;
  const documentedTypes = content ? Object.keys(content) : [];
  if (documentedTypes.length === 0) {
    if (!isEmptyBody(response)) problems.push({ path: '$', message: `expected no body, got ${bodyPreview}` });
  } else {
    const mediaType = mediaTypeOf(response.headers);
    const matched = mediaType ? matchMediaType(mediaType, documentedTypes) : undefined;
    if (!mediaType) {
      problems.push({
        path: 'header Content-Type',
        message: `Content-Type is missing (documented: ${documentedTypes.join(', ')})`,
      });
    } else if (!matched) {
      const hint = response.status >= 400 ? ' (problem responses must be application/problem+json)' : '';
      problems.push({
        path: 'header Content-Type',
        message: `Content-Type ${mediaType} is not documented (documented: ${documentedTypes.join(', ')})${hint}`,
      });
    }
    // With a wrong JSON media type, still report what is wrong with the body against the documented JSON type.
    const jsonTypes = documentedTypes.filter((type) => isJsonMediaType(type.toLowerCase()));
    const checkedType =
      matched ??
      (mediaType && isJsonMediaType(mediaType) && jsonTypes.length === 1 ? jsonTypes[0] : undefined);
    if (checkedType && isJsonMediaType(checkedType.toLowerCase())) {
      const media = content?.[checkedType];
      if (isRecord(media) && isRecord(media.schema)) {
        const body = jsonBody(response);
        if (!body.ok) {
          problems.push({ path: '$', message: body.reason });
        } else {
          const validate = validatorAt(childPointer(definition.pointer, 'content', checkedType, 'schema'));
          if (!validate(body.value)) problems.push(...describeErrors(validate.errors, 'body'));
        }
      }
    }
  }
  return { heading, bodyPreview, responseKey: found.key, findings: problems };
}

/** Throws a ContractViolation listing every finding of checkResponse, if there is any. */
export function expectMatchesSpec(response: ContractResponse, operationId: string): void {
  const check = checkResponse(response, operationId);
  if (check.findings.length === 0) return;
  if (check.responseKey === undefined) {
    throw new ContractViolation(
      `${check.heading}: ${check.findings[0].message}.\n` + `Body: ${check.bodyPreview}`,
    );
  }
  throw new ContractViolation(
    `${check.heading}; the response does not match openapi.yaml (responses.${check.responseKey}):\n` +
      render(check.findings) +
      `\nBody: ${check.bodyPreview}`,
  );
}

/** Everything wrong with one webhook delivery (headers and JSON envelope) against the root `webhooks` section. */
export function checkWebhookDelivery(delivery: WebhookDelivery, event: string): ContractFinding[] {
  const { document } = contract();
  const webhooks = isRecord(document.webhooks) ? document.webhooks : {};
  const pathItem = webhooks[event];
  const operation = isRecord(pathItem) ? pathItem.post : undefined;
  if (!isRecord(operation)) {
    return [
      {
        path: '$.event',
        message: `openapi.yaml documents no webhook "${event}" (known: ${Object.keys(webhooks).join(', ')})`,
      },
    ];
  }
  const pointer = childPointer('#', 'webhooks', event, 'post');
  const problems: ContractFinding[] = [];
  const headerDefinitions: JsonObject = {};
  const parameters = Array.isArray(operation.parameters) ? (operation.parameters as unknown[]) : [];
  parameters.forEach((parameter, index) => {
    if (!isRecord(parameter)) return;
    const resolved = resolve(document, {
      pointer: childPointer(pointer, 'parameters', String(index)),
      value: parameter,
    });
    if (resolved.value.in === 'header' && typeof resolved.value.name === 'string') {
      headerDefinitions[resolved.value.name] = { $ref: resolved.pointer };
    }
  });
  // Parameters and headers share the shape this check needs (required + schema).
  for (const [name, reference] of Object.entries(headerDefinitions)) {
    checkHeaders(document, { [name]: reference }, pointer, delivery.headers, problems, 'header');
  }
  const mediaType = mediaTypeOf(delivery.headers);
  if (mediaType !== 'application/json')
    problems.push({
      path: 'header Content-Type',
      message: `Content-Type must be application/json, got ${mediaType ?? 'none'}`,
    });
  const validate = validatorAt(childPointer(pointer, 'requestBody', 'content', 'application/json', 'schema'));
  const body = jsonBody({ status: 0, headers: delivery.headers, body: delivery.body });
  if (!body.ok) problems.push({ path: '$', message: body.reason });
  else if (!validate(body.value)) problems.push(...describeErrors(validate.errors, 'body'));
  return problems;
}

/** Throws a ContractViolation unless the delivery matches the root `webhooks` section. */
export function expectWebhookMatchesSpec(delivery: WebhookDelivery, event: string): void {
  const problems = checkWebhookDelivery(delivery, event);
  if (problems.length > 0) {
    throw new ContractViolation(
      `webhook ${event} does not match openapi.yaml:\n${render(problems)}\nBody: ${preview(delivery.body)}`,
    );
  }
}

/** Everything wrong with the parsed JSON of one `data:` line of streamTranscriptionEvents. */
export function checkEventFrame(frame: unknown): ContractFinding[] {
  const operation = indexedOperation('streamTranscriptionEvents');
  const validate = validatorAt(
    childPointer(operation.pointer, 'responses', '200', 'content', 'text/event-stream', 'x-frame-schema'),
  );
  return validate(frame) ? [] : describeErrors(validate.errors, 'frame');
}

/** Checks the parsed JSON of one Server-Sent Events `data:` line of streamTranscriptionEvents. */
export function expectEventFrameMatchesSpec(frame: unknown): void {
  const problems = checkEventFrame(frame);
  if (problems.length > 0) {
    throw new ContractViolation(
      `event frame does not match openapi.yaml:\n${render(problems)}\nFrame: ${preview(frame)}`,
    );
  }
}

/** Every operationId under `paths`, in document order. */
export function operationIds(): string[] {
  return [...contract().operations.keys()];
}

/** Every documented route: method (upper case), path as written (`{id}`), operationId. */
export function specRoutes(): SpecRoute[] {
  return [...contract().operations.values()].map(({ method, path, operationId }) => ({
    method,
    path,
    operationId,
  }));
}

/** Every problem slug the document defines (root extension `x-problem-types`). */
export function errorSlugs(): string[] {
  const types = contract().document['x-problem-types'];
  if (!Array.isArray(types)) throw new Error('openapi.yaml has no x-problem-types list');
  return types.flatMap((entry: unknown) =>
    isRecord(entry) && typeof entry.slug === 'string' ? [entry.slug] : [],
  );
}

/** The parsed document (read-only use), for tests that inspect descriptions. */
export function openApiDocument(): Readonly<JsonObject> {
  return contract().document;
}
