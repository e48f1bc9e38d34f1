// Lints asyncapi.yaml (the realtime WebSocket contract) with the AsyncAPI parser: any diagnostic fails.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Parser } = require('@asyncapi/parser');
const severities = ['error', 'warning', 'info', 'hint'];

const diagnostics = await new Parser().validate(readFileSync(new URL('../asyncapi.yaml', import.meta.url), 'utf8'));
for (const diagnostic of diagnostics) {
  console.error(
    `asyncapi.yaml ${diagnostic.path.join('.') || '(root)'}: ${severities[diagnostic.severity]} ${diagnostic.code}: ${diagnostic.message}`,
  );
}
if (diagnostics.length > 0) process.exit(1);
console.log('asyncapi.yaml: valid AsyncAPI, no findings');
