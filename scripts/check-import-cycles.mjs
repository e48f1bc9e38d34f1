// Fails when an import runs both ways between two sibling folders of src/ (two top-level modules such as
// src/account and src/auth, or two folders under the same parent such as src/common/http and src/common/problem).
// A folder and its own subfolder may depend on each other (a module and its parts); siblings may not, so each
// pair of modules has one direction a reader can follow.
//   node scripts/check-import-cycles.mjs          list the two-way pairs, exit 1 on any not in KNOWN_TWO_WAY
//   node scripts/check-import-cycles.mjs --edges  also print every one-way folder dependency
// Every relative import counts, `import type` and re-exports included: a type is a dependency too. Tests
// (*.spec.ts, *-spec.ts) are left out: a test may reach into its neighbours.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// Two-way pairs known and still to be untangled. A listed pair that no longer imports both ways fails the check
// (take it off the list), so the list only shrinks.
const KNOWN_TWO_WAY = new Set([
]);

const root = fileURLToPath(new URL('..', import.meta.url));
const srcRoot = join(root, 'src');

function sourceFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    const isSource = entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts');
    const isTest = /[.-]spec\.ts$/.test(entry.name);
    return isSource && !isTest ? [path] : [];
  });
}

/** The pair of sibling folders an import from `fromFile` to `toFile` crosses, or undefined when it crosses none. */
function siblingFolders(fromFile, toFile) {
  const from = relative(srcRoot, dirname(fromFile)).split(sep).filter(Boolean);
  const to = relative(srcRoot, dirname(toFile)).split(sep).filter(Boolean);
  let shared = 0;
  while (shared < from.length && shared < to.length && from[shared] === to[shared]) shared += 1;
  // Same folder, or one folder inside the other: not siblings.
  if (shared === from.length || shared === to.length) return undefined;
  return [from.slice(0, shared + 1).join('/'), to.slice(0, shared + 1).join('/')];
}

const edges = new Map(); // "a -> b" → example imports
for (const file of sourceFiles(srcRoot)) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = resolve(dirname(file), fileName);
    if (!target.startsWith(srcRoot + sep)) continue;
    const pair = siblingFolders(file, target);
    if (!pair) continue;
    const key = `${pair[0]} -> ${pair[1]}`;
    const examples = edges.get(key) ?? [];
    examples.push(`${relative(root, file)} imports ${fileName}`);
    edges.set(key, examples);
  }
}

const twoWay = [];
for (const key of edges.keys()) {
  const [a, b] = key.split(' -> ');
  if (a < b && edges.has(`${b} -> ${a}`)) twoWay.push([a, b]);
}

if (process.argv.includes('--edges')) {
  for (const key of [...edges.keys()].sort()) console.log(`${key} (${edges.get(key).length})`);
  console.log();
}
const found = new Set(twoWay.map(([a, b]) => `${a} <-> ${b}`));
const unexpected = twoWay.filter(([a, b]) => !KNOWN_TWO_WAY.has(`${a} <-> ${b}`)).sort();
const stale = [...KNOWN_TWO_WAY].filter((pair) => !found.has(pair));
for (const pair of KNOWN_TWO_WAY) if (found.has(pair)) console.log(`known, still two-way: ${pair}`);
if (unexpected.length === 0 && stale.length === 0) {
  console.log(
    `no other import runs both ways between sibling folders of src/ (${edges.size} folder dependencies)`,
  );
} else {
  for (const pair of stale) console.error(`${pair} no longer imports both ways: take it off KNOWN_TWO_WAY`);
  if (unexpected.length > 0) console.error(`${unexpected.length} pair(s) of folders import each other:`);
  for (const [a, b] of unexpected) {
    console.error(`\n  ${a} <-> ${b}`);
    for (const example of edges.get(`${a} -> ${b}`)) console.error(`    ${example}`);
    for (const example of edges.get(`${b} -> ${a}`)) console.error(`    ${example}`);
  }
  process.exit(1);
}
