/**
 * Requests derived from openapi.yaml: schemas with their `$ref`s inlined (so json-schema-faker and Ajv can use
 * them alone), values json-schema-faker draws reproducibly from a seed, and Ajv (draft 2020-12) as the oracle of
 * what the contract accepts. Shared by the fuzz suites (test/fuzz) and the contract runner (src/contract-runner).
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { JSONSchemaFaker } from 'json-schema-faker';
import { openApiDocument } from './openapi-contract';

export type JsonSchema = Record<string, unknown>;

/** Inlines `#/components/...` references (the document has no cycles) so schemas stand alone. */
export function dereference(value: unknown, depth = 0): unknown {
  if (depth > 40) throw new Error('openapi.yaml: $ref nesting too deep');
  if (Array.isArray(value)) return value.map((item) => dereference(item, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const object = value as JsonSchema;
  if (typeof object.$ref === 'string') {
    let target: unknown = openApiDocument();
    for (const segment of object.$ref.slice(2).split('/')) target = (target as JsonSchema)[segment];
    const { $ref: _ref, ...siblings } = object;
    return {
      ...(dereference(target, depth + 1) as JsonSchema),
      ...(dereference(siblings, depth + 1) as JsonSchema),
    };
  }
  return Object.fromEntries(Object.entries(object).map(([key, item]) => [key, dereference(item, depth + 1)]));
}

interface OperationObject {
  parameters?: unknown[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
}

function operationObject(method: string, path: string): { pathItem: JsonSchema; operation: OperationObject } {
  const pathItem = (openApiDocument().paths as Record<string, JsonSchema>)[path];
  return { pathItem, operation: pathItem[method.toLowerCase()] as OperationObject };
}

export interface QueryParameter {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

/** The query parameters openapi.yaml documents for an operation, with their schemas dereferenced. */
export function queryParameters(method: string, path: string): QueryParameter[] {
  const { pathItem, operation } = operationObject(method, path);
  const all = [...((pathItem.parameters as unknown[]) ?? []), ...(operation.parameters ?? [])].map(
    (parameter) =>
      dereference(parameter) as { name: string; in: string; required?: boolean; schema: JsonSchema },
  );
  return all
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) => ({
      name: parameter.name,
      required: parameter.required === true,
      schema: parameter.schema,
    }));
}

/** The JSON request-body schema of an operation, dereferenced, or undefined when it takes none. */
export function jsonBodySchema(method: string, path: string): JsonSchema | undefined {
  const schema = operationObject(method, path).operation.requestBody?.content?.['application/json']?.schema;
  return schema === undefined ? undefined : (dereference(schema) as JsonSchema);
}

const requestAjv = new Ajv2020({ strict: false, allErrors: true });
addFormats(requestAjv);
const compiled = new Map<JsonSchema, ValidateFunction>();

/** Ajv (draft 2020-12) as the oracle of what the contract accepts. */
export function conformsTo(schema: JsonSchema, value: unknown): boolean {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = requestAjv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate(value);
}

/** mulberry32: a tiny seeded PRNG, so every draw is fixed by its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The value json-schema-faker derives from `schema` with the PRNG seeded by `seed` (the same seed, the same value). */
export function fakedValue(schema: JsonSchema, seed: number): unknown {
  JSONSchemaFaker.option({
    random: seededRandom(seed),
    alwaysFakeOptionals: false,
    optionalsProbability: 0.6,
    maxItems: 6,
    maxLength: 40,
    useExamplesValue: false,
    failOnInvalidTypes: false,
    failOnInvalidFormat: false,
  });
  return JSONSchemaFaker.generate(schema);
}
