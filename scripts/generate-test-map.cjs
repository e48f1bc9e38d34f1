// Writes docs/test-map.md: every operation of openapi.yaml (routes and webhooks) and every message of asyncapi.yaml
// with the e2e spec files that exercise it, found by reading the specs' syntax trees (no test run).
//   node scripts/generate-test-map.cjs           rewrite docs/test-map.md
//   node scripts/generate-test-map.cjs --check   fail when an operation has no e2e spec or the file is stale
//
// Why syntax trees and not a text search: a path in a comment, a test title or a log message is not a request.
// Only these count, in test/e2e/*.e2e-spec.ts and in the test/support helpers they call:
//   - a request: `.get|post|put|patch|delete|head|options(path)` (supertest), `.GET|POST|…(path)` (the typed
//     client), `fetch(url, { method })`, `http.request({ method, path })`, `new WebSocket(url)` (GET, upgraded);
//     the path must resolve to a string containing `/v1/`, and method + path must match an operation's template;
//   - a contract check: `expectMatchesSpec(response, 'operationId')`, `expectWebhookMatchesSpec(delivery, 'event')`.
// Arguments are resolved through constants, template literals (a `${…}` is any path segment), `for … of` over
// array literals (destructured rows too), `it.each` tables and the parameters of named functions: a helper
// `download(path)` that calls `.get(path)` counts
// at each call site with the path given there, in the spec and across test/support. Loops over the whole
// document (routes.e2e-spec's unauthenticated sweep, the contract runner) name no operation and are not counted.
// CommonJS so that its unit test (test/build/test-map.spec.ts) can run it in-process on a fixture tree.
'use strict';
const { readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, resolve: resolvePath } = require('node:path');
const ts = require('typescript');
const { parse } = require('yaml');

const REPOSITORY = resolvePath(__dirname, '..');
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];
/** Stands for the unknown text of a `${…}` substitution until the path is matched. */
const ANY = '\u0000';

// ---------------------------------------------------------------------------------------------------------------
// The contract documents

function httpOperations(root) {
  const document = parse(readFileSync(join(root, 'openapi.yaml'), 'utf8'));
  const routes = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.includes(method) || !operation?.operationId) continue;
      const pattern = new RegExp(
        '^' +
          path
            .split(/\{[^}]+\}/)
            .map(escapeRegExp)
            .join('[^/]+') +
          '$',
      );
      routes.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        pattern,
        literalLength: path.replace(/\{[^}]+\}/g, '').length,
      });
    }
  }
  const webhooks = Object.entries(document.webhooks ?? {}).flatMap(([event, item]) =>
    item.post?.operationId ? [{ operationId: item.post.operationId, event }] : [],
  );
  return { routes, webhooks };
}

function realtimeMessages(root) {
  const document = parse(readFileSync(join(root, 'asyncapi.yaml'), 'utf8'));
  return Object.entries(document.operations ?? {}).flatMap(([operation, spec]) =>
    (spec.messages ?? []).map(({ $ref }) => {
      const name = $ref.split('/').pop();
      const message = document.components.messages[name];
      const channel = spec.channel?.$ref?.split('/').pop() ?? 'realtime';
      // A binary message (raw audio) has no `type`: its name stands for it.
      const type = message.payload.properties?.type?.const ?? message.name;
      return { operation, action: spec.action, name, type, channel, binary: message.payload.format === 'binary' };
    }),
  );
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---------------------------------------------------------------------------------------------------------------
// Reading the test files

/** One parsed file: its named functions (by name), imports (local name → module file), and the whole tree. */
function loadFile(path) {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const functions = new Map(); // name → [function-like node]
  const classes = new Map(); // class name → [method nodes]
  const imports = new Map(); // local name → { file, name }
  const visit = (node) => {
    const name = functionName(node);
    if (name) functions.set(name, [...(functions.get(name) ?? []), node]);
    if (ts.isClassDeclaration(node) && node.name) {
      classes.set(
        node.name.text,
        node.members.filter(
          (member) => ts.isMethodDeclaration(member) || ts.isConstructorDeclaration(member),
        ),
      );
    }
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const target = node.moduleSpecifier.text;
      if (target.startsWith('.')) {
        const file = resolvePath(dirname(path), target) + '.ts';
        const bindings = node.importClause?.namedBindings;
        if (bindings && ts.isNamedImports(bindings)) {
          for (const element of bindings.elements) {
            imports.set(element.name.text, { file, name: (element.propertyName ?? element.name).text });
          }
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { path, source, functions, classes, imports };
}

/** `function f`, `const f = () => …`, `const f = function …`, and class methods (`Class.method`). */
function functionName(node) {
  if (ts.isFunctionDeclaration(node) && node.name) return node.name.text;
  if (
    (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
    ts.isVariableDeclaration(node.parent) &&
    ts.isIdentifier(node.parent.name)
  ) {
    return node.parent.name.text;
  }
  if (
    ts.isMethodDeclaration(node) &&
    node.name &&
    ts.isIdentifier(node.name) &&
    ts.isClassDeclaration(node.parent)
  ) {
    return `${node.parent.name?.text}.${node.name.text}`;
  }
  return undefined;
}

const isFunctionLike = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node);

// ---------------------------------------------------------------------------------------------------------------
// Resolving an argument to its possible values: strings (with ANY for unknown parts) or { param: index }

function resolveValues(expression, depth = 0) {
  if (!expression || depth > 8) return [];
  if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression))
    return [expression.text];
  if (
    ts.isParenthesizedExpression(expression) ||
    ts.isAsExpression(expression) ||
    ts.isNonNullExpression(expression)
  )
    return resolveValues(expression.expression, depth + 1);
  if (ts.isTemplateExpression(expression)) {
    let texts = [expression.head.text];
    for (const span of expression.templateSpans) {
      const parts = resolveValues(span.expression, depth + 1).filter((value) => typeof value === 'string');
      const options = parts.length > 0 && parts.length <= 4 ? parts : [ANY];
      texts = texts.flatMap((text) => options.map((part) => text + part + span.literal.text));
    }
    return texts;
  }
  if (ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = stringsOrAny(expression.left, depth);
    const right = stringsOrAny(expression.right, depth);
    return left.flatMap((a) => right.map((b) => a + b));
  }
  if (ts.isConditionalExpression(expression))
    return [
      ...resolveValues(expression.whenTrue, depth + 1),
      ...resolveValues(expression.whenFalse, depth + 1),
    ];
  if (ts.isIdentifier(expression)) return resolveIdentifier(expression, depth);
  return [];
}

function stringsOrAny(expression, depth) {
  const values = resolveValues(expression, depth + 1).filter((value) => typeof value === 'string');
  return values.length > 0 ? values : [ANY];
}

/** A constant's initialiser, a `for (const x of [...])` element, or a parameter of the owning named function. */
function resolveIdentifier(identifier, depth) {
  const name = identifier.text;
  for (let scope = identifier.parent; scope; scope = scope.parent) {
    if (isFunctionLike(scope)) {
      const index = scope.parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === name);
      if (index >= 0) {
        if (!functionName(scope)) return eachTableColumn(scope, index, depth);
        const fallback = scope.parameters[index].initializer;
        return [{ param: index, owner: scope }, ...(fallback ? resolveValues(fallback, depth + 1) : [])];
      }
    }
    if ((ts.isForOfStatement(scope) || ts.isForInStatement(scope)) && declares(scope.initializer, name)) {
      const list = arrayElements(scope.expression, depth);
      return list.flatMap((element) => resolveValues(element, depth + 1));
    }
    // `for (const [path, operationId] of [['/v1/…', 'getX'], …])`: the same column of each row.
    const column = ts.isForOfStatement(scope) ? destructuredIndex(scope.initializer, name) : -1;
    if (column >= 0) return rowsColumn(arrayElements(scope.expression, depth), column, depth);
    const statements =
      ts.isBlock(scope) || ts.isSourceFile(scope) || ts.isModuleBlock(scope) ? scope.statements : [];
    for (const statement of statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name) || declaration.name.text !== name) continue;
        // A `let` may be reassigned before the request: its first value proves nothing.
        const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
        return constant && declaration.initializer ? resolveValues(declaration.initializer, depth + 1) : [];
      }
    }
  }
  return [];
}

/** `it.each(table)('…', (a, b) => …)`: the callback's parameter `index` takes that column of every row. */
function eachTableColumn(callback, index, depth) {
  const call = callback.parent;
  if (!call || !ts.isCallExpression(call) || !ts.isCallExpression(call.expression)) return [];
  const each = call.expression;
  if (!ts.isPropertyAccessExpression(each.expression) || each.expression.name.text !== 'each') return [];
  const rows = arrayElements(each.arguments[0], depth);
  return rowsColumn(rows, index, depth, true);
}

function rowsColumn(rows, column, depth, bareRowIsFirstColumn = false) {
  return rows.flatMap((row) => {
    const inner = ts.isAsExpression(row) ? row.expression : row;
    if (ts.isArrayLiteralExpression(inner)) return resolveValues(inner.elements[column], depth + 1);
    return bareRowIsFirstColumn && column === 0 ? resolveValues(inner, depth + 1) : [];
  });
}

/** The position of `name` in `const [a, b] of …`, or -1. */
function destructuredIndex(initializer, name) {
  if (!initializer || !ts.isVariableDeclarationList(initializer)) return -1;
  const pattern = initializer.declarations[0]?.name;
  if (!pattern || !ts.isArrayBindingPattern(pattern)) return -1;
  return pattern.elements.findIndex(
    (element) => ts.isBindingElement(element) && ts.isIdentifier(element.name) && element.name.text === name,
  );
}

const declares = (initializer, name) =>
  initializer &&
  ts.isVariableDeclarationList(initializer) &&
  initializer.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === name);

function arrayElements(expression, depth) {
  if (ts.isArrayLiteralExpression(expression)) return [...expression.elements];
  if (ts.isAsExpression(expression)) return arrayElements(expression.expression, depth);
  if (ts.isIdentifier(expression) && depth < 8) {
    for (let scope = expression.parent; scope; scope = scope.parent) {
      const statements = ts.isBlock(scope) || ts.isSourceFile(scope) ? scope.statements : [];
      for (const statement of statements) {
        if (!ts.isVariableStatement(statement)) continue;
        for (const declaration of statement.declarationList.declarations) {
          if (
            ts.isIdentifier(declaration.name) &&
            declaration.name.text === expression.text &&
            declaration.initializer
          )
            return arrayElements(declaration.initializer, depth + 1);
        }
      }
    }
  }
  return [];
}

// ---------------------------------------------------------------------------------------------------------------
// Evidence: { kind: 'request', method, value } | { kind: 'checks', api: 'http' | 'webhook', value }

/** The evidence one call or `new` expression gives by itself, values not yet bound to call sites. */
function directEvidence(node) {
  const found = [];
  const push = (kind, extra, expression) => {
    for (const value of resolveValues(expression)) found.push({ kind, ...extra, value, node });
  };
  // A contract check whose operation cannot be read is listed in the map rather than silently dropped.
  const pushCheck = (api, expression) => {
    const values = resolveValues(expression);
    if (values.length === 0) found.push({ kind: 'checks', api, value: null, unread: node.getText(), node });
    for (const value of values) found.push({ kind: 'checks', api, value, node });
  };
  if (ts.isCallExpression(node)) {
    const callee = node.expression;
    const [first, second] = node.arguments;
    const calleeName = ts.isIdentifier(callee)
      ? callee.text
      : ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : undefined;
    if (calleeName === 'expectMatchesSpec' && second) pushCheck('http', second);
    else if (calleeName === 'expectWebhookMatchesSpec' && second) pushCheck('webhook', second);
    else if (
      ts.isPropertyAccessExpression(callee) &&
      HTTP_METHODS.includes(calleeName.toLowerCase()) &&
      first
    ) {
      if (!ts.isObjectLiteralExpression(first)) push('request', { method: calleeName.toUpperCase() }, first);
      else requestOptions(first, push);
    } else if (calleeName === 'fetch' && first) {
      const method = second && ts.isObjectLiteralExpression(second) ? property(second, 'method') : undefined;
      const methods = method ? resolveValues(method).filter((m) => typeof m === 'string') : ['GET'];
      for (const m of methods) push('request', { method: m.toUpperCase() }, first);
    } else if (
      /^(request|httpRequest|httpsRequest)$/.test(calleeName ?? '') &&
      first &&
      ts.isObjectLiteralExpression(first)
    ) {
      requestOptions(first, push);
    }
  }
  if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'WebSocket') {
    const [url] = node.arguments ?? [];
    if (url) push('request', { method: 'GET' }, url);
  }
  return found;
}

/** `http.request({ method, path })`: the options object names both. */
function requestOptions(options, push) {
  const path = property(options, 'path');
  if (!path) return;
  const method = property(options, 'method');
  const methods = method ? resolveValues(method).filter((m) => typeof m === 'string') : ['GET'];
  for (const m of methods) push('request', { method: m.toUpperCase() }, path);
}

function property(object, name) {
  const found = object.properties.find(
    (p) => ts.isPropertyAssignment(p) && p.name && ts.isIdentifier(p.name) && p.name.text === name,
  );
  return found?.initializer;
}

class Project {
  constructor() {
    this.files = new Map();
    this.summaries = new Map();
  }

  file(path) {
    if (!this.files.has(path)) {
      try {
        this.files.set(path, loadFile(path));
      } catch {
        this.files.set(path, null);
      }
    }
    return this.files.get(path);
  }

  /** The function nodes a callee names, in this file or imported from another test file. */
  callees(file, callee) {
    if (ts.isIdentifier(callee)) {
      const local = file.functions.get(callee.text);
      if (local) return local.map((node) => ({ file, node }));
      const imported = file.imports.get(callee.text);
      const target = imported && this.file(imported.file);
      return (target?.functions.get(imported.name) ?? []).map((node) => ({ file: target, node }));
    }
    if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) {
      const className = callee.expression.text;
      const imported = file.imports.get(className);
      const target = imported ? this.file(imported.file) : file;
      const key = `${imported ? imported.name : className}.${callee.name.text}`;
      return (target?.functions.get(key) ?? []).map((node) => ({ file: target, node }));
    }
    return [];
  }

  /** Everything a named function does, its own parameters left as { param } values. */
  summary(file, fn) {
    if (this.summaries.has(fn)) return this.summaries.get(fn) ?? [];
    this.summaries.set(fn, null); // recursion guard
    const found = [];
    const visit = (node) => {
      if (node !== fn && functionName(node)) return; // a nested named function counts where it is called
      found.push(...this.evidenceAt(file, node));
      ts.forEachChild(node, visit);
    };
    visit(fn);
    this.summaries.set(fn, found);
    return found;
  }

  /** The evidence of one node: its own, and a called helper's with the arguments given here. */
  evidenceAt(file, node) {
    const found = directEvidence(node);
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      for (const { file: calleeFile, node: callee } of this.callees(file, node.expression)) {
        for (const item of this.summary(calleeFile, callee)) {
          if (typeof item.value === 'string') found.push(item);
          else if (item.value?.owner === callee) {
            for (const value of resolveValues(node.arguments?.[item.value.param]))
              found.push({ ...item, value, node });
          }
        }
      }
    }
    // A class used from another file brings what its methods do on their own (the realtime client's socket).
    if (ts.isIdentifier(node) && !ts.isImportSpecifier(node.parent) && file.imports.has(node.text)) {
      const imported = file.imports.get(node.text);
      const target = this.file(imported.file);
      for (const member of target?.classes.get(imported.name) ?? []) {
        for (const item of this.summary(target, member)) if (typeof item.value === 'string') found.push(item);
      }
    }
    return found;
  }

  /** All evidence of a spec file with concrete values. */
  specEvidence(file) {
    const found = [];
    const visit = (node) => {
      found.push(
        ...this.evidenceAt(file, node).filter(
          (item) => typeof item.value === 'string' || (item.unread && item.node === node),
        ),
      );
      ts.forEachChild(node, visit);
    };
    visit(file.source);
    return found;
  }
}

function matchRoute(routes, method, value) {
  const at = value.indexOf('/v1/');
  if (at < 0) return undefined;
  let path = value.slice(at).split(/[?#]/)[0];
  const candidates = [path.replaceAll(ANY, 'x')];
  if (path.endsWith(ANY)) candidates.push(path.replace(new RegExp(`${ANY}+$`), '').replaceAll(ANY, 'x'));
  for (const candidate of candidates) {
    const matches = routes
      .filter((route) => route.method === method && route.pattern.test(candidate))
      .sort((a, b) => b.literalLength - a.literalLength);
    if (matches.length > 0) return matches[0];
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------

/** What the e2e specs under `root`/test/e2e cover of `root`/openapi.yaml and asyncapi.yaml. */
function buildTestMap(root = REPOSITORY) {
  const { routes, webhooks } = httpOperations(root);
  const messages = realtimeMessages(root);
  const project = new Project();
  const e2eDirectory = join(root, 'test', 'e2e');
  const specs = readdirSync(e2eDirectory)
    .filter((name) => name.endsWith('.e2e-spec.ts'))
    .sort()
    .map((name) => join(e2eDirectory, name));
  const requested = new Map(); // operationId → Set(spec)
  const checked = new Map(); // operationId → Set(spec)
  const unmatched = new Map(); // "METHOD path" → Set(spec)
  const realtime = new Map(); // message type → Set(spec)
  const add = (map, key, spec) => map.set(key, (map.get(key) ?? new Set()).add(spec));
  const knownIds = new Set([...routes.map((r) => r.operationId), ...webhooks.map((w) => w.operationId)]);
  const unknownChecks = [];
  const unread = new Map(); // spec → Set(call text)
  for (const path of specs) {
    const spec = relative(root, path);
    const file = project.file(path);
    let opensRealtime = false;
    // Deepgram's live channel is opened by its SDK (listen.v1.connect) or a WebSocket to /v1/listen?…
    const opensDeepgramLive = /listen\.v1\.connect\(|\/v1\/listen\?/.test(file.source.getFullText());
    // AssemblyAI's streaming channel by its SDK (streaming.transcriber) or a WebSocket to /v3/ws.
    const opensAssemblyAiStreaming = /streaming\.transcriber\(|\/v3\/ws/.test(file.source.getFullText());
    for (const item of project.specEvidence(file)) {
      if (item.unread) {
        add(unread, spec, item.unread.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/,? \)/g, ')'));
      } else if (item.kind === 'request') {
        const route = matchRoute(routes, item.method, item.value);
        if (route) {
          add(requested, route.operationId, spec);
          if (route.operationId === 'openRealtimeSession') opensRealtime = true;
        } else if (route === null) {
          add(
            unmatched,
            `${item.method} ${item.value.slice(item.value.indexOf('/v1/')).replaceAll(ANY, '{…}')}`,
            spec,
          );
        }
      } else if (item.api === 'http') {
        if (knownIds.has(item.value)) add(checked, item.value, spec);
        else unknownChecks.push(`${spec}: expectMatchesSpec(…, '${item.value}')`);
      } else {
        const webhook = webhooks.find((w) => w.event === item.value);
        if (webhook) add(checked, webhook.operationId, spec);
        else unknownChecks.push(`${spec}: expectWebhookMatchesSpec(…, '${item.value}')`);
      }
    }
    const opened = new Set([
      ...(opensRealtime ? ['realtime'] : []),
      ...(opensDeepgramLive ? ['deepgramListen'] : []),
      ...(opensAssemblyAiStreaming ? ['assemblyAiStreaming'] : []),
    ]);
    for (const message of messages) {
      // Binary audio is what every session of its channel sends.
      if (message.binary && opened.has(message.channel)) add(realtime, message.type, spec);
    }
    if (opened.size > 0) {
      const types = new Set(messages.filter((m) => opened.has(m.channel)).map((m) => m.type));
      const visit = (node) => {
        if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && types.has(node.text))
          add(realtime, node.text, spec);
        ts.forEachChild(node, visit);
      };
      visit(file.source);
    }
  }
  return {
    routes,
    webhooks,
    messages,
    requested,
    checked,
    unmatched,
    realtime,
    unknownChecks,
    unread,
    specCount: specs.length,
  };
}

/** The Markdown of docs/test-map.md, what is uncovered, and every problem the check reports. */
function renderTestMap(map) {
  const link = (spec) => `[${spec.replace('test/e2e/', '').replace('.e2e-spec.ts', '')}](../${spec})`;
  const cell = (operationId) => {
    const specs = new Set([
      ...(map.requested.get(operationId) ?? []),
      ...(map.checked.get(operationId) ?? []),
    ]);
    return [...specs]
      .sort()
      .map((spec) => (map.checked.get(operationId)?.has(spec) ? `${link(spec)} ✓` : link(spec)))
      .join(', ');
  };
  const missing = [];
  const lines = [
    '# Test map: which e2e spec covers which operation',
    '',
    '<!-- Generated by scripts/generate-test-map.cjs (npm run test-map); do not edit by hand.',
    '     npm run lint:test-map fails when this file is stale or an operation has no e2e spec. -->',
    '',
    'Every operation of [openapi.yaml](../openapi.yaml) (routes and webhooks) and every message of',
    '[asyncapi.yaml](../asyncapi.yaml) (the realtime WebSocket), with the e2e spec files in',
    '[test/e2e](../test/e2e) that exercise it. ✓ marks a spec that also validates the answer against the',
    "operation's documented responses (`expectMatchesSpec`, `expectWebhookMatchesSpec`).",
    '',
    '**How it is built.** `scripts/generate-test-map.cjs` reads the syntax tree of each e2e spec (TypeScript',
    'compiler API, no test run), so a path in a comment, a test title or a log line does not count. What counts:',
    '',
    '- a request whose method and path match the operation: supertest `.get(path)`, `.post(path)`, …, the typed',
    "  client's `.GET(path)`, …, `fetch(url, { method })`, `http.request({ method, path })`, and",
    '  `new WebSocket(url)` (a GET upgraded, for `/v1/realtime`); `${…}` in a path stands for any segment;',
    "- a contract check naming the operation: `expectMatchesSpec(response, 'operationId')`,",
    "  `expectWebhookMatchesSpec(delivery, 'event')`.",
    '',
    'Paths and operation ids are followed through constants, template literals, `for … of` over array literals',
    '(destructured rows too), the rows of `it.each` tables and the parameters of named functions, so a helper (in',
    'the spec or in [test/support](../test/support)) that requests its `path` argument counts at each call site',
    'with the path given there. A realtime message counts for a spec that opens `/v1/realtime` and names the',
    "message type as a string. Loops over the whole document (routes.e2e-spec's unauthenticated sweep, the",
    "contract runner) name no operation and are not counted, nor are the README's curl examples (readme.e2e-spec).",
    '',
    `${map.specCount} e2e spec files; ${map.routes.length} routes, ${map.webhooks.length} webhooks, ` +
      `${map.messages.length} realtime messages.`,
    '',
    '## HTTP operations (openapi.yaml `paths`)',
    '',
    '| operationId | Route | e2e specs |',
    '| --- | --- | --- |',
  ];
  for (const route of map.routes) {
    const specs = cell(route.operationId);
    if (!specs) missing.push(`${route.operationId} (${route.method} ${route.path})`);
    lines.push(`| \`${route.operationId}\` | \`${route.method} ${route.path}\` | ${specs || '**none**'} |`);
  }
  lines.push(
    '',
    '## Webhook deliveries (openapi.yaml `webhooks`)',
    '',
    '| operationId | Event | e2e specs |',
    '| --- | --- | --- |',
  );
  for (const webhook of map.webhooks) {
    const specs = cell(webhook.operationId);
    if (!specs) missing.push(`${webhook.operationId} (webhook ${webhook.event})`);
    lines.push(`| \`${webhook.operationId}\` | \`${webhook.event}\` | ${specs || '**none**'} |`);
  }
  lines.push(
    '',
    '## Realtime WebSocket messages (asyncapi.yaml)',
    '',
    '| Operation | Message | `type` | e2e specs |',
    '| --- | --- | --- | --- |',
  );
  for (const message of map.messages) {
    const specs = [...(map.realtime.get(message.type) ?? [])].sort();
    if (specs.length === 0) missing.push(`${message.operation} ${message.name} (realtime ${message.type})`);
    const linked = specs.map(
      (spec) => `[${spec.replace('test/e2e/', '').replace('.e2e-spec.ts', '')}](../${spec})`,
    );
    lines.push(
      `| \`${message.operation}\` (${message.action}) | \`${message.name}\` | \`${message.type}\` | ${linked.join(', ') || '**none**'} |`,
    );
  }
  lines.push(
    '',
    '## Requests that match no operation',
    '',
    'Calls on purpose outside the contract (unknown paths, methods a route does not have, CORS preflights) or paths',
    'the generator could not read to the end. Listed so that a typo in a test shows up here.',
    '',
  );
  const unmatched = [...map.unmatched.entries()].sort(([a], [b]) => a.localeCompare(b));
  if (unmatched.length === 0) lines.push('None.');
  for (const [request, specs] of unmatched) {
    lines.push(
      `- \`${request}\`: ${[...specs]
        .sort()
        .map((s) => s.replace('test/e2e/', ''))
        .join(', ')}`,
    );
  }
  lines.push(
    '',
    '## Contract checks whose operation the generator cannot read',
    '',
    'Checks whose operation id comes from data the generator does not follow (a table of cases, a loop over the',
    'document). They are not counted above: an operation checked only this way needs a spec that names it.',
    '',
  );
  const unread = [...map.unread.entries()].sort(([a], [b]) => a.localeCompare(b));
  if (unread.length === 0) lines.push('None.');
  for (const [spec, calls] of unread) {
    const name = spec.replace('test/e2e/', '');
    for (const call of [...calls].sort()) lines.push(`- ${name}: \`${call.slice(0, 110)}\``);
  }
  lines.push('');
  const problems = [
    ...missing.map((what) => `no e2e spec covers ${what}`),
    ...map.unknownChecks.map((what) => `${what} names no operation of openapi.yaml`),
  ];
  return { text: lines.join('\n'), missing, problems };
}

function main(root = REPOSITORY) {
  const output = join(root, 'docs', 'test-map.md');
  const map = buildTestMap(root);
  const { text, missing, problems } = renderTestMap(map);
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(output, 'utf8');
    } catch {
      current = '';
    }
    if (current !== text) problems.push('docs/test-map.md is stale: run npm run test-map and commit it');
    for (const problem of problems) console.error(`test map: ${problem}`);
    if (problems.length > 0) process.exit(1);
    console.log(
      `test map: ${map.routes.length} routes, ${map.webhooks.length} webhooks, ${map.messages.length} realtime messages, each covered by an e2e spec; docs/test-map.md is current`,
    );
  } else {
    writeFileSync(output, text);
    for (const problem of problems) console.error(`test map: ${problem}`);
    console.log(`wrote ${relative(root, output)} (${missing.length} operations without an e2e spec)`);
    if (problems.length > 0) process.exit(1);
  }
}

module.exports = { buildTestMap, renderTestMap };
if (require.main === module) main();
