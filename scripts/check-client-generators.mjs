#!/usr/bin/env node
// Does openapi.yaml generate clean clients with the mainstream generators? Offline:
// 1. @apidevtools/swagger-parser validates the document;
// 2. openapi-typescript, @hey-api/openapi-ts and openapi-typescript-codegen each generate from a copy of it in a
//    temporary folder (as a new user would: no repository config such as redocly.yaml in reach);
// 3. a small program per generator, strict TypeScript, uses the generated types the way an integrator would
//    (a Blob as the upload's file without a cast, model and language left out, a typed vocabulary PUT body that
//    refuses a wrong shape) and must type-check.
// Known generator limits are written down in docs/decisions.md ("Typed client…"), not papered over here.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';

const root = resolve(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
// openapi-typescript-codegen's binary is called `openapi`, like Redocly CLI's: which one node_modules/.bin holds
// depends on the install order, so its own file is run.
const codegenCli = join(root, 'node_modules', 'openapi-typescript-codegen', 'bin', 'index.js');
const work = mkdtempSync(join(tmpdir(), 'client-generators-'));
const failures = [];

function run(label, command, args) {
  try {
    execFileSync(command, args, { cwd: work, stdio: 'pipe' });
    return true;
  } catch (error) {
    failures.push(`${label}:\n${String(error.stdout ?? '')}${String(error.stderr ?? '')}`.trim());
    return false;
  }
}

try {
  copyFileSync(join(root, 'openapi.yaml'), join(work, 'openapi.yaml'));
  await SwaggerParser.validate(join(work, 'openapi.yaml'));
  console.log('swagger-parser: valid');

  const generated = {
    'openapi-typescript': run('openapi-typescript', bin('openapi-typescript'), [
      'openapi.yaml',
      '-o',
      'ot/schema.d.ts',
    ]),
    '@hey-api/openapi-ts': run('@hey-api/openapi-ts', bin('openapi-ts'), ['-i', 'openapi.yaml', '-o', 'hey']),
    'openapi-typescript-codegen': run('openapi-typescript-codegen', process.execPath, [
      codegenCli,
      '--input',
      'openapi.yaml',
      '--output',
      'codegen',
      '--useOptions',
      '--useUnionTypes',
    ]),
  };

  // openapi-typescript types `format: binary` as string unless a transform says Blob (its documented
  // option, used by scripts/generate-client.mjs for clients/typescript): the program checks the repository's
  // generated schema for the Blob, and the plain CLI output for everything else.
  writeFileSync(
    join(work, 'ot-program.ts'),
    `import type { paths } from './ot/schema';
import type { components } from '${join(root, 'clients/typescript/src/schema').replace(/\\/g, '/')}';
type Form = components['schemas']['CreateTranscriptionForm'];
export const upload: Form = { file: new Blob(['RIFF']) };
type Put = paths['/v1/vocabularies/{id}']['put']['requestBody']['content']['application/json'];
export const rename: Put = { name: 'Product names' };
// @ts-expect-error a vocabulary body is typed, not unknown
export const wrong: Put = { name: 42 };
type Export = paths['/v1/transcriptions/{id}/export']['get']['responses'][200]['content'];
export const srt: Export['text/srt'] = '1\\n00:00:00,000 --> 00:00:01,000\\nHi\\n';
`,
  );
  writeFileSync(
    join(work, 'hey-program.ts'),
    `import type { CreateTranscriptionForm, UpdateVocabularyRequest } from './hey/types.gen';
export const upload: CreateTranscriptionForm = { file: new Blob(['RIFF']) };
export const rename: UpdateVocabularyRequest = { name: 'Product names' };
// @ts-expect-error a vocabulary body is typed, not unknown
export const wrong: UpdateVocabularyRequest = { name: 42 };
`,
  );
  writeFileSync(
    join(work, 'codegen-program.ts'),
    `import type { CreateTranscriptionForm, UpdateVocabularyRequest } from './codegen';
export const upload: CreateTranscriptionForm = { file: new Blob(['RIFF']) };
export const rename: UpdateVocabularyRequest = { name: 'Product names' };
// @ts-expect-error a vocabulary body is typed, not unknown
export const wrong: UpdateVocabularyRequest = { name: 42 };
`,
  );
  const programs = {
    'openapi-typescript': 'ot-program.ts',
    '@hey-api/openapi-ts': 'hey-program.ts',
    'openapi-typescript-codegen': 'codegen-program.ts',
  };
  for (const [generator, program] of Object.entries(programs)) {
    if (!generated[generator]) continue;
    const ok = run(`${generator}: ${program} does not type-check`, bin('tsc'), [
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--lib',
      'es2022,dom',
      '--typeRoots',
      join(root, 'node_modules', '@types'),
      '--types',
      'node',
      program,
    ]);
    if (ok) console.log(`${generator}: generated, ${program} type-checks`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(failures.join('\n\n'));
  process.exit(1);
}
