import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

interface TestMap {
  requested: Map<string, Set<string>>;
  checked: Map<string, Set<string>>;
  realtime: Map<string, Set<string>>;
}
// The generator is a plain CommonJS script (npm run test-map runs it with node), without type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildTestMap, renderTestMap } = require('../../scripts/generate-test-map.cjs') as {
  buildTestMap: (root: string) => TestMap;
  renderTestMap: (map: TestMap) => { text: string; missing: string[]; problems: string[] };
};

const OPENAPI = `
openapi: 3.1.0
paths:
  /v1/things:
    get: { operationId: listThings }
  /v1/things/{id}:
    get: { operationId: getThing }
    delete: { operationId: deleteThing }
  /v1/things/{id}/search:
    get: { operationId: searchThing }
  /v1/realtime:
    get: { operationId: openRealtimeSession }
webhooks:
  thing.done:
    post: { operationId: deliverThingDone }
`;

const ASYNCAPI = `
asyncapi: 3.1.0
operations:
  sendServerEvents:
    action: send
    messages:
      - $ref: '#/channels/realtime/messages/pong'
components:
  messages:
    pong:
      payload: { properties: { type: { const: pong } } }
`;

const HELPERS = `
export async function fetchThing(t: App, id: string) {
  return t.http().get(\`/v1/things/\${id}\`);
}
export function download(t: App, path: string) {
  return t.http().get(path);
}
`;

/**
 * The test map generator on a small repository of its own: what counts as covering an operation, and that a
 * path written only in a comment or a test title does not.
 */
describe('test map (scripts/generate-test-map.cjs)', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const specsOf = (map: Map<string, Set<string>>, key: string) => [...(map.get(key) ?? [])].sort();

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'test-map-'));
    write('openapi.yaml', OPENAPI);
    write('asyncapi.yaml', ASYNCAPI);
    write('test/support/helpers.ts', HELPERS);
    write(
      'test/e2e/things.e2e-spec.ts',
      `import { download, fetchThing } from '../support/helpers';
      // t.http().get('/v1/things/1/search') and DELETE /v1/things/{id} are only mentioned here
      it('GET /v1/things/{id}/search answers 200', async () => {
        const list = await t.http().get('/v1/things');
        expectMatchesSpec(list, 'listThings');
        await fetchThing(t, 'a');
        for (const [path, operationId] of [['/v1/things/b', 'getThing']]) {
          expectMatchesSpec(await download(t, path), operationId);
        }
        expectWebhookMatchesSpec(delivery, 'thing.done');
        const socket = new WebSocket(\`ws://127.0.0.1:\${port}/v1/realtime\`);
        await next(socket, 'pong');
      });`,
    );
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('finds requests, helper calls with their arguments, contract checks, webhooks and realtime messages', () => {
    const map = buildTestMap(root);
    const spec = 'test/e2e/things.e2e-spec.ts';
    expect(specsOf(map.requested, 'listThings')).toEqual([spec]);
    expect(specsOf(map.requested, 'getThing')).toEqual([spec]);
    expect(specsOf(map.checked, 'getThing')).toEqual([spec]);
    expect(specsOf(map.checked, 'deliverThingDone')).toEqual([spec]);
    expect(specsOf(map.requested, 'openRealtimeSession')).toEqual([spec]);
    expect(specsOf(map.realtime, 'pong')).toEqual([spec]);
  });

  it('does not count a path that appears only in a comment or a test title', () => {
    const { missing, problems } = renderTestMap(buildTestMap(root));
    expect(missing).toEqual([
      'deleteThing (DELETE /v1/things/{id})',
      'searchThing (GET /v1/things/{id}/search)',
    ]);
    expect(problems).toEqual([
      'no e2e spec covers deleteThing (DELETE /v1/things/{id})',
      'no e2e spec covers searchThing (GET /v1/things/{id}/search)',
    ]);
  });

  it('counts an operation once a spec requests it, here through a helper given the path', () => {
    write(
      'test/e2e/search.e2e-spec.ts',
      `import { download } from '../support/helpers';
      const search = (id: string) => download(t, \`/v1/things/\${id}/search?q=x\`);
      it('searches', async () => {
        await search('c');
        await t.http().delete(\`/v1/things/\${id}\`);
      });`,
    );
    const map = buildTestMap(root);
    expect(specsOf(map.requested, 'searchThing')).toEqual(['test/e2e/search.e2e-spec.ts']);
    expect(renderTestMap(map).problems).toEqual([]);
  });

  it('reports a contract check naming an operation the document does not have', () => {
    write('test/e2e/typo.e2e-spec.ts', `it('x', () => expectMatchesSpec(response, 'getThingz'));`);
    expect(renderTestMap(buildTestMap(root)).problems).toContain(
      "test/e2e/typo.e2e-spec.ts: expectMatchesSpec(…, 'getThingz') names no operation of openapi.yaml",
    );
  });
});
