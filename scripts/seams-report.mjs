// Prints the figures that say how easy the code is to extend, read from the syntax trees of src/ (tests, i.e.
// *.spec.ts, excluded unless said): where the open-state rule is written out, where code outside the engine
// registry branches on an engine kind, which top-level folders of src/ import each other both ways, the largest
// files, and how many files import the whole application configuration.
//   node scripts/seams-report.mjs [--registry src/engine/registry] [--json]
// --registry: files under this path are the engine registry, where naming each kind is its job (repeatable).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve as resolvePath, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolvePath(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const ENGINE_KINDS = ['pocketsphinx', 'whisper-cpp', 'openai-compatible', 'classical', 'sherpa-onnx'];
const OPEN_STATES = ['queued', 'processing'];
const TERMINAL_STATES = ['completed', 'failed'];
const APP_CONFIG = join(SRC, 'config', 'app-config.ts');

const args = process.argv.slice(2);
const registryPaths = args.flatMap((arg, i) =>
  arg === '--registry' ? [resolvePath(ROOT, args[i + 1])] : [],
);
const asJson = args.includes('--json');

function walk(directory) {
  return readdirSync(directory)
    .sort()
    .flatMap((name) => {
      const path = join(directory, name);
      return statSync(path).isDirectory() ? walk(path) : name.endsWith('.ts') ? [path] : [];
    });
}

/** `*.spec.ts`, `*.integration-spec.ts`, `*.e2e-spec.ts`, … */
const isTest = (path) => /[.-]spec\.ts$/.test(path);
const rel = (path) => relative(ROOT, path).split(sep).join('/');
const parsed = new Map();
const parse = (path) => {
  if (!parsed.has(path))
    parsed.set(path, ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true));
  return parsed.get(path);
};
const lineOf = (source, node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
const visitAll = (node, visit) => {
  visit(node);
  ts.forEachChild(node, (child) => visitAll(child, visit));
};
const stringText = (node) =>
  ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : undefined;

const allSources = walk(SRC);
const sources = allSources.filter((path) => !isTest(path));

// -- 1. The open-state (and terminal-state) rule written out -----------------------------------------------------
// `['queued', 'processing']` (an array of exactly those two), `status IN ('queued', 'processing')` in SQL text (a
// list of exactly those two), and `s === 'queued' || s === 'processing'`; the same for 'completed' and 'failed'.
// The one shared constant counts once: that is the one place.
function stateRule(states) {
  const found = [];
  const [a, b] = states;
  const sqlPattern = new RegExp(
    `[([]\\s*'${a}'\\s*,\\s*'${b}'\\s*[)\\]]|[([]\\s*'${b}'\\s*,\\s*'${a}'\\s*[)\\]]`,
    'g',
  );
  for (const path of sources) {
    const source = parse(path);
    visitAll(source, (node) => {
      if (ts.isArrayLiteralExpression(node)) {
        const texts = node.elements.map(stringText);
        if (texts.length === 2 && states.every((state) => texts.includes(state)))
          found.push({ file: rel(path), line: lineOf(source, node), form: 'array' });
      } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
        for (const _ of node.text.matchAll(sqlPattern))
          found.push({ file: rel(path), line: lineOf(source, node), form: 'SQL' });
      } else if (ts.isTemplateExpression(node)) {
        const text = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join('${}');
        for (const _ of text.matchAll(sqlPattern))
          found.push({ file: rel(path), line: lineOf(source, node), form: 'SQL' });
      } else if (
        ts.isBinaryExpression(node) &&
        node.operatorToken.kind === ts.SyntaxKind.BarBarToken &&
        !(ts.isBinaryExpression(node.parent) && node.parent.operatorToken.kind === ts.SyntaxKind.BarBarToken)
      ) {
        const compared = new Set();
        const collect = (expression) => {
          if (ts.isParenthesizedExpression(expression)) return collect(expression.expression);
          if (!ts.isBinaryExpression(expression)) return;
          const kind = expression.operatorToken.kind;
          if (kind === ts.SyntaxKind.BarBarToken) {
            collect(expression.left);
            collect(expression.right);
          } else if (
            kind === ts.SyntaxKind.EqualsEqualsEqualsToken ||
            kind === ts.SyntaxKind.EqualsEqualsToken
          ) {
            for (const side of [expression.left, expression.right]) {
              const text = stringText(side);
              if (text) compared.add(text);
            }
          }
        };
        collect(node);
        if (states.every((state) => compared.has(state)))
          found.push({ file: rel(path), line: lineOf(source, node), form: 'comparison' });
      }
    });
  }
  return found;
}

// -- 2. Branching on an engine kind outside the registry ---------------------------------------------------------
// `case 'whisper-cpp':`, `kind === 'pocketsphinx'` / `!==`, and lookup tables keyed by two or more kinds
// (`{ pocketsphinx: …, 'whisper-cpp': … }`). A descriptor's own `kind: 'whisper-cpp'` is not a branch.
function engineKindSwitches() {
  const found = [];
  const inRegistry = (path) =>
    registryPaths.some((registry) => path === registry || path.startsWith(registry + sep));
  for (const path of sources) {
    if (inRegistry(path)) continue;
    const source = parse(path);
    visitAll(source, (node) => {
      if (ts.isCaseClause(node)) {
        const text = stringText(node.expression);
        if (ENGINE_KINDS.includes(text))
          found.push({ file: rel(path), line: lineOf(source, node), form: `case '${text}'` });
      } else if (ts.isBinaryExpression(node)) {
        const kind = node.operatorToken.kind;
        if (
          kind === ts.SyntaxKind.EqualsEqualsEqualsToken ||
          kind === ts.SyntaxKind.ExclamationEqualsEqualsToken ||
          kind === ts.SyntaxKind.EqualsEqualsToken ||
          kind === ts.SyntaxKind.ExclamationEqualsToken
        ) {
          for (const side of [node.left, node.right]) {
            const text = stringText(side);
            if (ENGINE_KINDS.includes(text))
              found.push({
                file: rel(path),
                line: lineOf(source, node),
                form: `${ts.tokenToString(kind)} '${text}'`,
              });
          }
        }
      } else if (ts.isObjectLiteralExpression(node)) {
        const keys = node.properties
          .map((p) =>
            p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined,
          )
          .filter((key) => ENGINE_KINDS.includes(key));
        if (keys.length >= 2)
          found.push({ file: rel(path), line: lineOf(source, node), form: `table {${keys.join(', ')}}` });
      }
    });
  }
  return found;
}

// -- 3. Imports between top-level folders of src/ --------------------------------------------------------------
function moduleSpecifiers(source) {
  const specifiers = [];
  visitAll(source, (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const typeOnly = ts.isImportDeclaration(node)
        ? Boolean(node.importClause?.isTypeOnly)
        : node.isTypeOnly;
      specifiers.push({ text: node.moduleSpecifier.text, typeOnly });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] &&
      stringText(node.arguments[0])
    ) {
      specifiers.push({ text: stringText(node.arguments[0]), typeOnly: false });
    }
  });
  return specifiers;
}

function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolvePath(dirname(from), specifier);
  for (const candidate of [base + '.ts', join(base, 'index.ts'), base]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** The folder right under `root` that holds `path`; null for a file directly in `root` or outside it. */
const folderUnder = (root, path) => {
  if (!path.startsWith(root + sep)) return null;
  const parts = relative(root, path).split(sep);
  return parts.length > 1 ? parts[0] : null; // src/*.ts compose the application and are not a module
};

function folderImports(root = SRC) {
  const folderOf = (path) => folderUnder(root, path);
  const edges = new Map(); // "a→b" → [{ file, target, typeOnly }]
  for (const path of sources) {
    const from = folderOf(path);
    if (!from) continue;
    for (const { text, typeOnly } of moduleSpecifiers(parse(path))) {
      const target = resolveImport(path, text);
      const to = target ? folderOf(target) : null;
      if (!to || to === from) continue;
      const key = `${from}→${to}`;
      edges.set(key, [...(edges.get(key) ?? []), { file: rel(path), target: rel(target), typeOnly }]);
    }
  }
  const pairs = [];
  for (const key of [...edges.keys()].sort()) {
    const [a, b] = key.split('→');
    if (a < b && edges.has(`${b}→${a}`)) {
      pairs.push({ a, b, forward: edges.get(key), backward: edges.get(`${b}→${a}`) });
    }
  }
  return { edges, pairs, cycles: stronglyConnected(edges) };
}

/**
 * Pairs of sibling folders at any depth (src/account and src/auth, src/common/http and src/common/problem,
 * src/engine/pocketsphinx and src/engine/registry) that import each other; a folder and its own sub-folder are
 * not siblings. Returns "a ↔ b" with the number of imports each way.
 */
function siblingFolderPairs() {
  const edges = new Map();
  for (const path of sources) {
    const from = relative(SRC, dirname(path)).split(sep).filter(Boolean);
    for (const { text } of moduleSpecifiers(parse(path))) {
      const target = resolveImport(path, text);
      if (!target || !target.startsWith(SRC + sep)) continue;
      const to = relative(SRC, dirname(target)).split(sep).filter(Boolean);
      let shared = 0;
      while (shared < from.length && shared < to.length && from[shared] === to[shared]) shared += 1;
      if (shared === from.length || shared === to.length) continue;
      const key = `${from.slice(0, shared + 1).join('/')}→${to.slice(0, shared + 1).join('/')}`;
      edges.set(key, (edges.get(key) ?? 0) + 1);
    }
  }
  return [...edges.keys()]
    .map((key) => key.split('→'))
    .filter(([a, b]) => a < b && edges.has(`${b}→${a}`))
    .map(([a, b]) => ({
      pair: `${a} ↔ ${b}`,
      forward: edges.get(`${a}→${b}`),
      backward: edges.get(`${b}→${a}`),
    }))
    .sort((x, y) => x.pair.localeCompare(y.pair));
}

/** Folders that reach each other through any chain of imports (Tarjan), largest first. */
function stronglyConnected(edges) {
  const graph = new Map();
  for (const key of edges.keys()) {
    const [a, b] = key.split('→');
    graph.set(a, [...(graph.get(a) ?? []), b]);
    if (!graph.has(b)) graph.set(b, []);
  }
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const connect = (node) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)) {
      if (!indices.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), indices.get(next)));
    }
    if (low.get(node) === indices.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) connect(node);
  return components.sort((x, y) => y.length - x.length || x[0].localeCompare(y[0]));
}

// -- 4. Largest files, 5. importers of the application configuration ------------------------------------------
function largestFiles(count) {
  return sources
    .map((path) => ({ file: rel(path), lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file))
    .slice(0, count);
}

function appConfigImporters() {
  const importing = (paths) =>
    paths.filter((path) =>
      moduleSpecifiers(parse(path)).some(({ text }) => resolveImport(path, text) === APP_CONFIG),
    );
  const tests = [...walk(join(ROOT, 'test')), ...allSources.filter(isTest)];
  const configLines = (() => {
    try {
      return readFileSync(APP_CONFIG, 'utf8').split('\n').length - 1;
    } catch {
      return 0;
    }
  })();
  return { src: importing(sources).map(rel), tests: importing(tests).map(rel), configLines };
}

// -- 6. Comments that point outside the code ------------------------------------------------------------------
// "issue 12", "#12 of the issue", "SPEC …": a reader of the repository cannot follow them.
function outsideReferences() {
  const pattern = /\bissues?\s*#?\d+|\bSPEC\b/g;
  const found = [];
  for (const path of sources) {
    const text = readFileSync(path, 'utf8');
    const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
    for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
      if (token !== ts.SyntaxKind.SingleLineCommentTrivia && token !== ts.SyntaxKind.MultiLineCommentTrivia)
        continue;
      const comment = scanner.getTokenText();
      for (const match of comment.matchAll(pattern)) {
        const line = text.slice(0, scanner.getTokenStart() + match.index).split('\n').length;
        found.push({ file: rel(path), line, form: match[0] });
      }
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------------------

const report = {
  openStateRule: stateRule(OPEN_STATES),
  terminalStateRule: stateRule(TERMINAL_STATES),
  engineKindSwitches: engineKindSwitches(),
  folderImports: folderImports(),
  engineFolderImports: folderImports(join(SRC, 'engine')),
  siblingFolderPairs: siblingFolderPairs(),
  largestFiles: largestFiles(15),
  appConfig: appConfigImporters(),
  outsideReferences: outsideReferences(),
};

if (asJson) {
  // Each import edge as its number of import statements ("billing→account": 5), not the statements themselves.
  const withoutEdges = ({ edges, ...rest }) => ({
    ...rest,
    edges: Object.fromEntries([...edges.entries()].map(([key, list]) => [key, list.length])),
  });
  console.log(
    JSON.stringify(
      {
        ...report,
        folderImports: withoutEdges(report.folderImports),
        engineFolderImports: withoutEdges(report.engineFolderImports),
      },
      null,
      2,
    ),
  );
} else {
  const out = [];
  const byFile = (items) => {
    const files = new Map();
    for (const item of items) files.set(item.file, [...(files.get(item.file) ?? []), item]);
    return [...files.entries()].map(
      ([file, list]) => `    ${file}: ${list.map((item) => `${item.line} (${item.form})`).join(', ')}`,
    );
  };
  const fileCount = (items) => new Set(items.map((item) => item.file)).size;
  out.push(`Seams report (src/, ${sources.length} source files, tests excluded)`);
  out.push('');
  const open = report.openStateRule;
  out.push(
    `1. Open-state rule ("queued or processing") written out: ${open.length} in ${fileCount(open)} files`,
  );
  out.push(...byFile(open));
  const terminal = report.terminalStateRule;
  out.push(
    `   Terminal-state rule ("completed or failed") written out: ${terminal.length} in ${fileCount(terminal)} files`,
  );
  out.push(...byFile(terminal));
  const switches = report.engineKindSwitches;
  out.push('');
  out.push(
    `2. Branches on an engine kind (${ENGINE_KINDS.join(', ')}) outside the registry` +
      `${registryPaths.length ? ` (${registryPaths.map(rel).join(', ')})` : ' (no --registry given)'}: ` +
      `${switches.length} in ${fileCount(switches)} files`,
  );
  out.push(...byFile(switches));
  const describePairs = (pairs) => {
    for (const { a, b, forward, backward } of pairs) {
      const describe = (list) => {
        const files = [...new Set(list.map((edge) => edge.file))];
        const typeOnly = list.every((edge) => edge.typeOnly) ? ', type-only' : '';
        return `${list.length} imports from ${files.length} files${typeOnly}: ${files.join(', ')}`;
      };
      out.push(`    ${a} ↔ ${b}`);
      out.push(`      ${a} → ${b}: ${describe(forward)}`);
      out.push(`      ${b} → ${a}: ${describe(backward)}`);
    }
  };
  const cyclesText = (cycles) =>
    cycles.length === 0 ? 'none' : cycles.map((c) => `{${c.join(', ')}}`).join(' ');
  const { pairs, cycles } = report.folderImports;
  out.push('');
  out.push(`3. Top-level folders of src/ that import each other both ways: ${pairs.length} pairs`);
  describePairs(pairs);
  out.push(`   Folders caught in import cycles of any length: ${cyclesText(cycles)}`);
  const engine = report.engineFolderImports;
  out.push(
    `   Within src/engine, sub-folders that import each other both ways: ${engine.pairs.length} pairs`,
  );
  describePairs(engine.pairs);
  out.push(`   Sub-folders of src/engine caught in import cycles: ${cyclesText(engine.cycles)}`);
  const siblings = report.siblingFolderPairs;
  out.push(`   Sibling folders at any depth that import each other both ways: ${siblings.length} pairs`);
  for (const { pair, forward, backward } of siblings)
    out.push(`    ${pair} (${forward} / ${backward} imports)`);
  out.push('');
  out.push('4. The 15 largest source files (lines)');
  for (const { file, lines } of report.largestFiles) out.push(`    ${String(lines).padStart(5)}  ${file}`);
  out.push('');
  const { src, tests, configLines } = report.appConfig;
  out.push(
    `5. Files importing src/config/app-config${configLines ? ` (${configLines} lines)` : ' (file gone)'}: ` +
      `${src.length} in src/ (${tests.length} tests besides)`,
  );
  const references = report.outsideReferences;
  out.push('');
  out.push(
    `6. Comments citing an issue number or a SPEC: ${references.length} in ${fileCount(references)} files`,
  );
  console.log(out.join('\n'));
}
