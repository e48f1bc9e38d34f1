import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import {
  Permission,
  ROLE_PERMISSIONS,
  ROLES,
  SCOPES,
  SCOPE_PERMISSIONS,
} from '../../src/common/principal/permission-table';
import { IS_PUBLIC } from '../../src/common/principal/public.decorator';
import { REQUIRED_PERMISSION } from '../../src/common/principal/require-permission.decorator';
import { IS_SESSION_ONLY } from '../../src/common/principal/session-only.decorator';
import { openApiDocument, specRoutes } from '../../src/openapi/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const PASSWORD = 'a long enough test password';

interface Operation {
  operationId: string;
  method: string;
  path: string;
  permission: string;
}

interface Caller {
  name: string;
  headers: Record<string, string>;
  permissions: ReadonlySet<Permission>;
  isKey: boolean;
}

/** Every operation of openapi.yaml with its `x-permission`. */
function contractOperations(): Operation[] {
  const paths = openApiDocument().paths as Record<
    string,
    Record<string, { operationId?: string; 'x-permission'?: string }>
  >;
  return specRoutes().map(({ method, path, operationId }) => ({
    operationId,
    method,
    path,
    permission: String(paths[path][method.toLowerCase()]['x-permission']),
  }));
}

/**
 * The permission matrix the issue asks for, generated from the contract: every operation × every role (a
 * signed-in member of each role) and every API-key scope (a key holding that scope alone) is called, and the
 * answer must be what the permission table says: 403 naming the operation's `x-permission` when the caller
 * lacks it, anything but that when it holds it (a 404 for an unknown id, a 422 for an empty body...). An API key
 * on a dashboard (session) operation is 403 without a permission. Before, the routes and the contract are
 * checked against each other: each route's @RequirePermission is the operation's `x-permission`.
 */
describe('Permission matrix: each operation × each role and scope', () => {
  let t: TestApp;
  const callers: Caller[] = [];
  let sessionOnly: Set<string>;

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    sessionOnly = routeMetadata(t).sessionOnly;
    const owner = await t.createWorkspace({ name: 'Matrix', email: `matrix-${randomUUID()}@example.com` });
    const ownerToken = bearer(t.issueToken(owner.userId));
    callers.push({
      name: 'role owner',
      headers: ownerToken,
      permissions: new Set(ROLE_PERMISSIONS.owner),
      isKey: false,
    });
    for (const role of ROLES.filter((candidate) => candidate !== 'owner')) {
      const invited = await t
        .http()
        .post('/v1/workspace/invitations')
        .set(ownerToken)
        .send({ email: `matrix-${role}-${randomUUID()}@example.com`, role });
      const accepted = await t
        .http()
        .post('/v1/auth/invitations/accept')
        .send({ token: invited.body.data.token, password: PASSWORD });
      expect(accepted.status).toBe(200);
      callers.push({
        name: `role ${role}`,
        headers: bearer(accepted.body.data.accessToken as string),
        permissions: new Set(ROLE_PERMISSIONS[role]),
        isKey: false,
      });
    }
    for (const scope of SCOPES) {
      const created = await t
        .http()
        .post('/v1/api-keys')
        .set(ownerToken)
        .send({ name: scope, scopes: [scope] });
      expect(created.status).toBe(201);
      callers.push({
        name: `key scope ${scope}`,
        headers: bearer(created.body.data.key as string),
        permissions: new Set(SCOPE_PERMISSIONS[scope]),
        isKey: true,
      });
    }
  });
  afterAll(() => t.close());

  it('every route names the permission its operation states in openapi.yaml (x-permission), and no route lacks one', () => {
    const { permissions } = routeMetadata(t);
    const stated = Object.fromEntries(
      contractOperations().map((op) => [`${op.method} ${op.path}`, op.permission]),
    );
    expect(permissions).toEqual(
      Object.fromEntries(
        Object.keys(permissions).map((route) => [route, stated[route] ?? 'not in openapi.yaml']),
      ),
    );
    expect(Object.keys(permissions).sort()).toEqual(Object.keys(stated).sort());
  });

  it('answers every cell as the permission table says', async () => {
    const operations = contractOperations().filter((op) => op.permission !== 'public');
    // Leaving ends the membership it is called with: last, so every other cell is called as a member.
    operations.sort(
      (a, b) => Number(a.operationId === 'leaveWorkspace') - Number(b.operationId === 'leaveWorkspace'),
    );
    const wrong: string[] = [];
    const tally = { allowed: 0, refused: 0, sessionOnly: 0 };
    for (const operation of operations) {
      for (const caller of callers) {
        const answer = await call(t, operation, caller.headers);
        const named = namedPermission(answer.body);
        let expected: string;
        if (caller.isKey && sessionOnly.has(`${operation.method} ${operation.path}`))
          expected = 'session-only';
        else if (
          operation.permission === 'authenticated' ||
          caller.permissions.has(operation.permission as Permission)
        )
          expected = 'allowed';
        else expected = 'refused';
        const seen =
          answer.status === 403 && named !== undefined
            ? 'refused'
            : answer.status === 403 && caller.isKey
              ? 'session-only'
              : 'allowed';
        tally[expected === 'session-only' ? 'sessionOnly' : (expected as 'allowed' | 'refused')] += 1;
        if (seen !== expected || (seen === 'refused' && named !== operation.permission)) {
          wrong.push(
            `${operation.operationId} as ${caller.name}: expected ${expected}, got ${answer.status} ${JSON.stringify(answer.body).slice(0, 160)}`,
          );
        }
        if (expected === 'allowed')
          expect({ cell: `${operation.operationId} / ${caller.name}`, status: answer.status }).not.toEqual({
            cell: `${operation.operationId} / ${caller.name}`,
            status: 401,
          });
      }
    }
    process.stdout.write(
      `permission matrix: ${operations.length} operations × ${callers.length} callers = ${operations.length * callers.length} cells; ` +
        `${tally.allowed} allowed, ${tally.refused} refused naming the permission, ${tally.sessionOnly} session-only refusals of keys\n`,
    );
    expect(wrong).toEqual([]);
  });
});

/** A request of the operation with unknown ids and an empty body: only the permission decides a refusal. */
async function call(t: TestApp, operation: Operation, headers: Record<string, string>) {
  const path = operation.path.replace(/\{[^}]+\}/g, () => randomUUID());
  const query = operation.operationId === 'exportTranscription' ? '?format=txt' : '';
  const agent = t.http();
  const method = operation.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  const pending = agent[method](`${path}${query}`).set(headers);
  return ['post', 'put', 'patch'].includes(method) ? pending.send({}) : pending;
}

/** The permission each route of the application names (@RequirePermission / @Public), and its session-only routes. */
function routeMetadata(t: TestApp): { permissions: Record<string, string>; sessionOnly: Set<string> } {
  const discovery = t.app.get(DiscoveryService);
  const scanner = t.app.get(MetadataScanner);
  const reflector = t.app.get(Reflector);
  const permissions: Record<string, string> = {};
  const sessionOnly = new Set<string>();
  for (const wrapper of discovery.getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance || !wrapper.metatype) continue;
    const controller = wrapper.metatype;
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    for (const name of scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
      const handler = (instance as Record<string, unknown>)[name] as object;
      const route = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (route === undefined || method === undefined) continue;
      const path = `/${[base, route].filter((part) => part && part !== '/').join('/')}`
        .replace(/\/+/g, '/')
        .replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      if (!/^\/v[123]\//.test(path)) continue;
      const key = `${RequestMethod[method]} ${path}`;
      const targets = [handler as never, controller as never];
      const isPublic = reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets);
      permissions[key] = isPublic
        ? 'public'
        : String(reflector.getAllAndOverride<string>(REQUIRED_PERMISSION, targets));
      if (reflector.getAllAndOverride<boolean>(IS_SESSION_ONLY, targets)) sessionOnly.add(key);
    }
  }
  return { permissions, sessionOnly };
}

/** The permission a refusal names: `permission` of a problem, or the one OpenAI's error shape names in its message. */
function namedPermission(body: unknown): string | undefined {
  const problem = body as
    | {
        permission?: string;
        error?: { code?: string; message?: string } | string;
        err_code?: string;
        err_msg?: string;
      }
    | undefined;
  if (problem?.permission !== undefined) return problem.permission;
  // Deepgram's shape: the permission is named in err_msg, as in OpenAI's message.
  if (problem?.err_code === 'INSUFFICIENT_PERMISSIONS') return /`([^`]+)`/.exec(problem.err_msg ?? '')?.[1];
  // AssemblyAI's shape: `{"error": "This operation needs the permission `…`, …"}`.
  if (typeof problem?.error === 'string') return /needs the permission `([^`]+)`/.exec(problem.error)?.[1];
  if (typeof problem?.error !== 'object' || problem.error.code !== 'insufficient_permissions')
    return undefined;
  return /`([^`]+)`/.exec(problem.error.message ?? '')?.[1];
}
