// Proves that the server's response shapes are checked by the compiler against openapi.yaml
// (src/openapi/contract-types.ts): on a copy of the contract, each change below is made, the declarations are
// generated as `npm run client:generate` does, and the server (src/, tests left out) is type-checked against
// them in a scratch copy. Every change must make the compiler fail in the file that builds that shape; the
// check fails when one does not (a view that has fallen back to an inferred or hand-written shape).
//   node scripts/check-contract-drift.mjs   (npm run lint:contract-drift; about one tsc run)
// The unchanged contract compiling cleanly is `npm run typecheck`'s job.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse, stringify } from 'yaml';
import { schemaTypesOf } from './contract-schema-types.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** One drift each: the contract changed as `apply` says, the server left as it is. */
const DRIFTS = [
  {
    what: 'a field of a response renamed in the contract (Transcription.wordCount → wordTotal)',
    expectErrorIn: 'src/transcriptions/transcription.views.ts',
    apply: (schemas) => renameProperty(schemas.Transcription, 'wordCount', 'wordTotal'),
  },
  {
    what: 'a required field added to a response (BalanceSnapshot.currency)',
    expectErrorIn: 'src/account/account.service.ts',
    apply: (schemas) => {
      schemas.BalanceSnapshot.properties.currency = { type: 'string' };
      schemas.BalanceSnapshot.required.push('currency');
    },
  },
  {
    what: 'a field the server sends taken out of the contract (WebhookEndpoint.createdOn)',
    expectErrorIn: 'src/webhooks/webhook-endpoints.service.ts',
    apply: (schemas) => removeProperty(schemas.WebhookEndpoint, 'createdOn'),
  },
  {
    what: "a webhook payload field's type changed (transcription.completed data.cost: number → string)",
    expectErrorIn: 'src/transcriptions/transcription-lifecycle.service.ts',
    apply: (schemas) => {
      schemas.TranscriptionCompletedEvent.properties.data.properties.cost = { type: 'string' };
    },
  },
  {
    what: 'an OpenAI-compatible answer changed (OpenAiVerboseTranscription.duration: number → string)',
    expectErrorIn: 'src/openai-compat/openai-response.formatter.ts',
    apply: (schemas) => {
      schemas.OpenAiVerboseTranscription.properties.duration = { type: 'string' };
    },
  },
];

function renameProperty(schema, from, to) {
  schema.properties[to] = schema.properties[from];
  delete schema.properties[from];
  schema.required = schema.required.map((name) => (name === from ? to : name));
}

function removeProperty(schema, name) {
  delete schema.properties[name];
  schema.required = schema.required.filter((required) => required !== name);
}

const scratch = mkdtempSync(join(tmpdir(), 'contract-drift-'));
try {
  const document = parse(readFileSync(join(root, 'openapi.yaml'), 'utf8'));
  for (const drift of DRIFTS) drift.apply(document.components.schemas);
  const changedContract = join(scratch, 'openapi.yaml');
  writeFileSync(changedContract, stringify(document));

  // The server as it is, beside the declarations of the changed contract.
  cpSync(join(root, 'src'), join(scratch, 'src'), { recursive: true });
  mkdirSync(join(scratch, 'clients/typescript/src'), { recursive: true });
  writeFileSync(
    join(scratch, 'clients/typescript/src/schema.d.ts'),
    await schemaTypesOf(pathToFileURL(changedContract)),
  );
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'), 'dir');
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({
      extends: join(root, 'tsconfig.json'),
      compilerOptions: { noEmit: true, incremental: false, types: ['node'] },
      include: ['src/**/*.ts'],
      exclude: ['**/*.spec.ts', '**/*-spec.ts'],
    }),
  );

  let output = '';
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', scratch], {
      cwd: scratch,
      encoding: 'utf8',
    });
  } catch (error) {
    output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
  }
  const errorLines = output.split('\n').filter((line) => /^src\/.*\): error TS\d+/.test(line));

  let missed = 0;
  for (const drift of DRIFTS) {
    const caught = errorLines.filter((line) => line.startsWith(`${drift.expectErrorIn}(`));
    if (caught.length > 0) {
      console.log(`caught: ${drift.what}\n  ${caught[0]}`);
    } else {
      missed += 1;
      console.error(`NOT caught: ${drift.what} (no error in ${drift.expectErrorIn})`);
    }
  }
  console.log(
    `\n${errorLines.length} compiler error(s) in all for ${DRIFTS.length} changes of the contract:`,
  );
  for (const line of errorLines) console.log(`  ${line.slice(0, line.indexOf(': error') + 16)}`);
  if (missed > 0) {
    console.error(`${missed} change(s) of the contract compiled without the server: see above`);
    process.exitCode = 1;
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
