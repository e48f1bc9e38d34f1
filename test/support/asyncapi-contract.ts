/**
 * Contract checks of the realtime WebSocket against the hand-written asyncapi.yaml, as expectMatchesSpec does
 * for HTTP: every server event a test receives is validated against the payload schema of the message whose
 * `type` it carries. The whole document is one Ajv schema, so `#/components/...` references resolve as written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { ContractViolation } from './openapi-contract';

const SPEC_FILE = join(__dirname, '..', '..', 'asyncapi.yaml');
const DOCUMENT_ID = 'https://contract.invalid/asyncapi.yaml';

interface MessageSpec {
  payload: { properties: { type: { const: string } } };
}

let validators: Map<string, ValidateFunction> | undefined;

/** One validator per server message type (the messages of the `send` operation). */
function serverMessageValidators(): Map<string, ValidateFunction> {
  if (validators) return validators;
  const document = parse(readFileSync(SPEC_FILE, 'utf8')) as {
    operations: Record<string, { action: string; messages: Array<{ $ref: string }> }>;
    components: { messages: Record<string, MessageSpec> };
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  validators = new Map();
  for (const operation of Object.values(document.operations)) {
    if (operation.action !== 'send') continue;
    for (const { $ref } of operation.messages) {
      const name = $ref.split('/').pop() ?? '';
      const type = document.components.messages[name].payload.properties.type.const;
      const validate = ajv.getSchema(`${DOCUMENT_ID}#/components/messages/${name}/payload`);
      if (!validate) throw new Error(`asyncapi.yaml: no payload schema for ${name}`);
      validators.set(type, validate);
    }
  }
  return validators;
}

/** Throws a ContractViolation unless `event` is a server message of asyncapi.yaml and matches its schema. */
export function expectMatchesRealtimeSpec(event: unknown): void {
  const type = (event as { type?: unknown } | null)?.type;
  const validate = serverMessageValidators().get(String(type));
  if (!validate)
    throw new ContractViolation(`asyncapi.yaml has no server message of type ${JSON.stringify(type)}`);
  if (!validate(event)) {
    throw new ContractViolation(
      `${String(type)} does not match asyncapi.yaml: ${JSON.stringify(validate.errors)}\n${JSON.stringify(event).slice(0, 600)}`,
    );
  }
}
