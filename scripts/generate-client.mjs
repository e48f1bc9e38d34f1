// Generates clients/typescript/src/schema.d.ts from openapi.yaml with openapi-typescript's Node API.
//   node scripts/generate-client.mjs          write the file (npm run client:generate)
//   node scripts/generate-client.mjs --check  fail when the committed file differs (npm run client:check)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { schemaTypesOf } from './contract-schema-types.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = `${root}clients/typescript/src/schema.d.ts`;
const output = await schemaTypesOf(new URL(`file://${root}openapi.yaml`));

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing file: reported as a difference below
  }
  if (committed !== output) {
    console.error(`${target} is out of date with openapi.yaml: run npm run client:generate`);
    process.exit(1);
  }
  console.log('clients/typescript/src/schema.d.ts is up to date');
} else {
  writeFileSync(target, output);
  console.log(`wrote ${target}`);
}
