/**
 * The hosted APIs' own published contracts (../shared/compat, see its README), for the compatibility routes:
 * a response of ours must also be valid against the vendor's schema for it. The files are reference data beside
 * the repository, never copied into it; where they are missing, `vendorSchemas` answers null and the tests
 * that need them report themselves skipped, by name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { ContractViolation } from './openapi-contract';
import { SHARED_DIR } from './shared-paths';

export type Vendor = 'deepgram' | 'assemblyai';

/** The vendor's file (relative to ../shared/compat) describing its REST API. */
const REST_FILES: Record<Vendor, string> = {
  deepgram: 'deepgram/openapi.yml',
  assemblyai: 'assemblyai/openapi.yml',
};
/** The vendor's file describing its streaming WebSocket. */
const STREAMING_FILES: Record<Vendor, string> = {
  deepgram: 'deepgram/asyncapi.yml',
  assemblyai: 'assemblyai/streaming-asyncapi.yml',
};
/** AssemblyAI publishes its temporary streaming tokens (`GET /v3/token`) in a file of their own. */
const TOKEN_FILES: Partial<Record<Vendor, string>> = {
  assemblyai: 'assemblyai/streaming-token.yml',
};

export type ContractKind = 'rest' | 'streaming' | 'token';

export interface VendorSchemas {
  file: string;
  /**
   * Throws a ContractViolation unless `value` is valid against `#/components/schemas/<name>` of the file, or
   * against the schema at `name` when it is a JSON pointer (`#/paths/~1v3~1token/…`).
   */
  expectValid(name: string, value: unknown): void;
}

const loaded = new Map<string, VendorSchemas | null>();

export function vendorContractFile(vendor: Vendor, kind: ContractKind = 'rest'): string {
  const file = { rest: REST_FILES, streaming: STREAMING_FILES, token: TOKEN_FILES }[kind][vendor];
  if (file === undefined) throw new Error(`${vendor} publishes no ${kind} contract`);
  return join(SHARED_DIR, 'compat', file);
}

export function vendorSchemas(vendor: Vendor, kind: ContractKind = 'rest'): VendorSchemas | null {
  const cacheKey = `${vendor}:${kind}`;
  if (loaded.has(cacheKey)) return loaded.get(cacheKey) ?? null;
  const file = vendorContractFile(vendor, kind);
  if (!existsSync(file)) {
    loaded.set(cacheKey, null);
    return null;
  }
  const id = `https://vendor.invalid/${vendor}-${kind}.yml`;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // AssemblyAI's streaming file annotates units as formats (`ms`, `s`, `float`): annotations, no check.
  for (const annotation of ['ms', 's', 'float']) ajv.addFormat(annotation, true);
  ajv.addSchema({ ...(parse(readFileSync(file, 'utf8')) as object), $id: id });
  const validators = new Map<string, ValidateFunction>();
  const schemas: VendorSchemas = {
    file,
    expectValid(name, value) {
      let validate = validators.get(name);
      if (!validate) {
        validate = ajv.getSchema(
          name.startsWith('#/') ? `${id}${name}` : `${id}#/components/schemas/${name}`,
        );
        if (!validate) throw new Error(`${file} has no schema ${name}`);
        validators.set(name, validate);
      }
      if (!validate(value)) {
        throw new ContractViolation(
          `not valid against ${vendor}'s ${name}: ${JSON.stringify(validate.errors).slice(0, 1500)}\n${JSON.stringify(value).slice(0, 600)}`,
        );
      }
    },
  };
  loaded.set(cacheKey, schemas);
  return schemas;
}
