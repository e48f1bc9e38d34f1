import { sign } from 'jsonwebtoken';
import { OPERATOR } from '../../src/audit/audit-log.service';
import { generateKeyPairSync } from 'node:crypto';
import { DataSource } from 'typeorm';
import { User } from '../../src/account/user.entity';
import { ApiKeyService } from '../../src/auth/api-key.service';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const SECRET = 'test-secret-that-is-long-enough-for-hs256';

describe('Authentication (spec: Authentication)', () => {
  let t: TestApp;
  let workspace: Awaited<ReturnType<TestApp['createWorkspace']>>;

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    workspace = await t.createWorkspace({ name: 'Auth tests' });
  });
  afterAll(() => t.close());

  const balance = (headers: Record<string, string>) => t.http().get('/v1/account/balance').set(headers);

  async function expectProblem(headers: Record<string, string>, status: number, slug: string): Promise<void> {
    const response = await balance(headers);
    expect({ status: response.status, type: response.body.type }).toEqual({
      status,
      type: `https://errors.transcription.example/problems/${slug}`,
    });
    expectMatchesSpec(response, 'getBalance');
  }

  describe('accepted credentials', () => {
    it('accepts an API key as a bearer credential', async () => {
      const response = await balance(bearer(workspace.apiKey));
      expect(response.status).toBe(200);
      expectMatchesSpec(response, 'getBalance');
    });

    it('accepts an API key in X-API-KEY', async () => {
      const response = await balance({ 'X-API-KEY': workspace.apiKey });
      expect(response.status).toBe(200);
    });

    it('accepts an HS256 JWT whose subject is a user', async () => {
      const response = await t
        .http()
        .get('/v1/account/profile')
        .set(bearer(t.issueToken(workspace.userId)));
      expect(response.status).toBe(200);
      expect(response.body.data.id).toBe(workspace.userId);
      expectMatchesSpec(response, 'getProfile');
    });

    // RFC 7235: the scheme is case-insensitive and is separated from the credential by whitespace.
    it.each([
      ['lower-case scheme', (credential: string) => `bearer ${credential}`],
      ['upper-case scheme', (credential: string) => `BEARER ${credential}`],
      ['several spaces', (credential: string) => `Bearer    ${credential}`],
      ['tab', (credential: string) => `Bearer\t${credential}`],
    ])('accepts an API key and a JWT alike with a %s', async (_name, header) => {
      for (const credential of [workspace.apiKey, t.issueToken(workspace.userId)]) {
        const response = await balance({ Authorization: header(credential) });
        expect({ credential: credential.slice(0, 9), status: response.status }).toEqual({
          credential: credential.slice(0, 9),
          status: 200,
        });
        expectMatchesSpec(response, 'getBalance');
      }
    });

    it('generates keys as svc_live_ followed by 40 characters', () => {
      expect(workspace.apiKey).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    });
  });

  describe('unauthorized (401): header missing or malformed', () => {
    it.each([
      ['no header at all', {}],
      ['a Basic scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
      ['Bearer without a credential', { Authorization: 'Bearer' }],
      ['an empty X-API-KEY', { 'X-API-KEY': '' }],
    ])('%s', async (_name, headers) => {
      await expectProblem(headers, 401, 'unauthorized');
    });
  });

  describe('invalid-api-key (401): not found, revoked or expired', () => {
    it('unknown key', async () => {
      await expectProblem(bearer(`svc_live_${'x'.repeat(40)}`), 401, 'invalid-api-key');
      await expectProblem({ 'X-API-KEY': `svc_live_${'y'.repeat(40)}` }, 401, 'invalid-api-key');
    });

    it('revoked key', async () => {
      const keys = t.app.get(ApiKeyService);
      const { apiKey } = await keys.create(workspace.workspaceId, workspace.userId, { actor: OPERATOR });
      expect((await balance(bearer(apiKey))).status).toBe(200);
      await keys.revoke(apiKey, OPERATOR);
      await expectProblem(bearer(apiKey), 401, 'invalid-api-key');
    });

    it('expired key', async () => {
      const keys = t.app.get(ApiKeyService);
      const { apiKey } = await keys.create(workspace.workspaceId, workspace.userId, {
        expiresInDays: -1,
        actor: OPERATOR,
      });
      await expectProblem(bearer(apiKey), 401, 'invalid-api-key');
    });
  });

  describe('invalid-token (401): bad signature, expired, other algorithms', () => {
    const claims = () => ({ sub: workspace.userId });

    it('wrong signature', async () => {
      const token = sign(claims(), 'another-secret-that-is-also-long-enough', {
        algorithm: 'HS256',
        expiresIn: 60,
      });
      await expectProblem(bearer(token), 401, 'invalid-token');
    });

    it('expired token', async () => {
      const token = sign({ ...claims(), exp: Math.floor(Date.now() / 1000) - 10 }, SECRET, {
        algorithm: 'HS256',
      });
      await expectProblem(bearer(token), 401, 'invalid-token');
    });

    it('alg none', async () => {
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      const payload = Buffer.from(
        JSON.stringify({ ...claims(), exp: Math.floor(Date.now() / 1000) + 60 }),
      ).toString('base64url');
      await expectProblem(bearer(`${header}.${payload}.`), 401, 'invalid-token');
    });

    it('HS512 with the right secret (only HS256 is accepted)', async () => {
      const token = sign(claims(), SECRET, { algorithm: 'HS512', expiresIn: 60 });
      await expectProblem(bearer(token), 401, 'invalid-token');
    });

    it('RS256 (algorithm confusion)', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const token = sign(claims(), privateKey, { algorithm: 'RS256', expiresIn: 60 });
      await expectProblem(bearer(token), 401, 'invalid-token');
    });

    it('token without exp', async () => {
      const token = sign(claims(), SECRET, { algorithm: 'HS256' });
      await expectProblem(bearer(token), 401, 'invalid-token');
    });

    it('garbage that looks like a JWT', async () => {
      await expectProblem(bearer('aaa.bbb.ccc'), 401, 'invalid-token');
    });
  });

  describe('user-not-found (401) and forbidden (403)', () => {
    it('a token for a user that was deleted', async () => {
      const other = await t.createWorkspace({ name: 'Deleted user' });
      const token = t.issueToken(other.userId);
      await t.app.get(DataSource).getRepository(User).delete({ id: other.userId });
      await expectProblem(bearer(token), 401, 'user-not-found');
    });

    it('an API key belongs to the workspace: it keeps working after its creator is deleted', async () => {
      const other = await t.createWorkspace({ name: 'Creator leaves' });
      const token = t.issueToken(other.userId);
      await t.app.get(DataSource).getRepository(User).delete({ id: other.userId });
      // The session of the deleted user ends …
      await expectProblem(bearer(token), 401, 'user-not-found');
      // … while the workspace's key still works on workspace data.
      const kept = await balance(bearer(other.apiKey));
      expect(kept.status).toBe(200);
      expect(kept.body.data.balance).toBe(10);
      expectMatchesSpec(kept, 'getBalance');
      const list = await t.http().get('/v1/transcriptions').set(bearer(other.apiKey));
      expect(list.status).toBe(200);
      expectMatchesSpec(list, 'listTranscriptions');
      // There is no user to describe: the profile is 403, not a 401 that would tell the client the key is bad.
      const profile = await t.http().get('/v1/account/profile').set(bearer(other.apiKey));
      expect({ status: profile.status, type: profile.body.type }).toEqual({
        status: 403,
        type: 'https://errors.transcription.example/problems/forbidden',
      });
      expect(profile.body.detail).toMatch(/no user/);
      expectMatchesSpec(profile, 'getProfile');
    });

    it('a user with no active workspace is authenticated but forbidden', async () => {
      const other = await t.createWorkspace({ name: 'Orphaned user' });
      await t.app
        .get(DataSource)
        .getRepository(User)
        .update({ id: other.userId }, { activeWorkspaceId: null });
      await expectProblem(bearer(t.issueToken(other.userId)), 403, 'forbidden');
    });
  });
});
