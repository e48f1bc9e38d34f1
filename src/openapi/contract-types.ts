// The server's side of the HTTP contract, typed from openapi.yaml: the same generated declarations the
// dashboard and the TypeScript client use (clients/typescript/src/schema.d.ts, written by
// `npm run client:generate`, checked current by `npm run client:check`). Every view and webhook payload builder
// returns one of these types, so a schema changed without the server (or the server without the schema) fails
// `npm run typecheck`; scripts/check-contract-drift.mjs proves it. Type-only: nothing of it exists at run time.
import type { components, operations } from '../../clients/typescript/src/schema';

type Schemas = components['schemas'];

/** A schema of openapi.yaml (`#/components/schemas/<Name>`). */
export type Schema<Name extends keyof Schemas> = Schemas[Name];

/** The `application/json` body `operationId` answers with `status` (200 unless named). */
export type ResponseBody<
  OperationId extends keyof operations,
  Status extends keyof operations[OperationId]['responses'] = 200 &
    keyof operations[OperationId]['responses'],
> = operations[OperationId]['responses'][Status] extends { content: { 'application/json': infer Body } }
  ? Body
  : never;

/** A string of the contract that a view may also hold as a `Date`: JSON.stringify writes `toISOString()`. */
type DateOr<T> = T extends unknown ? (string extends T ? T | Date : T) : never;

/** What a handler of `operationId` returns for `status` (200 unless named): its JSON body, Dates allowed. */
export type ResponseOf<
  OperationId extends keyof operations,
  Status extends keyof operations[OperationId]['responses'] = 200 &
    keyof operations[OperationId]['responses'],
> = SerializesTo<ResponseBody<OperationId, Status>>;

/**
 * What a view may return for the JSON value `T`: `T` itself, except that a date-time string may still be the
 * entity's `Date` (serialised to the same string). Literal strings (statuses, tiers) stay exact.
 */
export type SerializesTo<T> = T extends readonly (infer Item)[]
  ? readonly SerializesTo<Item>[]
  : T extends object
    ? { [Key in keyof T]: SerializesTo<T[Key]> }
    : DateOr<T>;
