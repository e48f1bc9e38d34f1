import { execFile } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { DataSource } from 'typeorm';
import { WebSocket } from 'ws';
import { eventually } from '../support/eventually';
import { expectMatchesSpec } from '../support/openapi-contract';
import { rawAudio, RealtimeTestClient } from '../support/realtime';
import { testAudio } from '../support/shared-paths';
import { UserPasswordService } from '../../src/auth/session/user-password.service';
import { cookieValue, createUserWithPassword } from '../support/sessions';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { baseTestEnvironment } from '../support/test-environment';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.8 s: "go forward ten meters"
const ALLOWED_ORIGIN = 'https://studio.example';
const CREDENTIAL_PROTOCOL = 'openai-insecure-api-key.';
const PASSWORD = 'correct horse battery staple';
/** Unused secrets a workspace may hold in this suite (REALTIME_CLIENT_SECRETS_MAX_PER_WORKSPACE). */
const SECRETS_CAP = 3;
const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const run = promisify(execFile);

/** A refused handshake: the HTTP status and problem body the server answered instead of switching protocols. */
async function handshakeRefusal(
  port: number,
  headers: Record<string, string>,
): Promise<{ status: number; contentType: string; body: Record<string, unknown> }> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime`, { headers });
  return new Promise((resolve, reject) => {
    socket.once('open', () => reject(new Error('the handshake was accepted')));
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response: IncomingMessage) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: String(response.headers['content-type']),
          body: JSON.parse(text) as Record<string, unknown>,
        }),
      );
    });
  });
}

/**
 * Browser authentication of realtime sessions: client secrets minted over REST (OpenAI's client_secrets shape)
 * and presented as the `openai-insecure-api-key.` subprotocol or as a bearer credential, single-use, expiring and
 * bound to their workspace and session; and the session cookie, accepted only from the service's own origin or a
 * configured one (no cross-site WebSocket hijacking).
 */
describe('Realtime sessions from browsers: client secrets and the session cookie', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({
      REALTIME_COOKIE_ORIGINS: ALLOWED_ORIGIN,
      MINIMUM_BALANCE_EUR: '0.0001',
      REALTIME_CLIENT_SECRETS_MAX_PER_WORKSPACE: String(SECRETS_CAP),
    });
    port = await t.listeningPort();
  });
  afterAll(() => t.close());

  const withSecret = (secret: string, protocols = ['realtime', `${CREDENTIAL_PROTOCOL}${secret}`]) =>
    new RealtimeTestClient(
      new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?model=gpt-4o-transcribe`, protocols),
    );

  async function mint(credential: string, body?: unknown) {
    const request = t.http().post('/v1/realtime/client_secrets').set(bearer(credential));
    const response = body === undefined ? await request : await request.send(body as object);
    expectMatchesSpec(response, 'createRealtimeClientSecret');
    return response;
  }

  async function expectUnauthorized(client: RealtimeTestClient, message: RegExp): Promise<void> {
    const error = await client.next('error');
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'unauthorized' });
    expect(String((error.error as { message: string }).message)).toMatch(message);
    expect(await client.whenClosed()).toEqual({ code: 4001, reason: 'unauthorized' });
  }

  it('mints a secret bound to a session; a browser opens it once with the subprotocol, in the minting workspace', async () => {
    const owner = await t.createWorkspace({ name: 'Secrets owner' });
    const other = await t.createWorkspace({ name: 'Secrets other' });
    const before = Math.floor(Date.now() / 1000);
    const minted = await mint(owner.apiKey, {
      expires_after: { anchor: 'created_at', seconds: 120 },
      session: {
        type: 'transcription',
        audio: {
          input: { format: { type: 'audio/pcm', rate: 16000 }, transcription: { model: 'standard' } },
        },
        metadata: { page: 'live' },
      },
    });
    expect(minted.status).toBe(201);
    expect(minted.body.value).toMatch(/^ek_[0-9A-Za-z]{40}$/);
    expect(minted.body.expires_at).toBeGreaterThanOrEqual(before + 120);
    expect(minted.body.expires_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 120);
    expect(minted.body.session).toMatchObject({
      type: 'transcription',
      audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } },
      tier: 'standard',
      metadata: { page: 'live' },
    });
    // Stored only as a hash.
    const stored = await t.app.get(DataSource).query(`SELECT secret_hash FROM realtime_client_secrets`);
    expect(JSON.stringify(stored)).not.toContain(minted.body.value);

    const client = withSecret(minted.body.value);
    await client.opened;
    expect(client.socket.protocol).toBe('realtime');
    const created = await client.next('session.created');
    // The secret's session, not the URL's model.
    expect(created.session).toMatchObject({
      audio: { input: { format: { type: 'audio/pcm', rate: 16000 }, transcription: { model: 'standard' } } },
      metadata: { page: 'live' },
    });
    const transcriptionId = (created.session as { transcription_id: string }).transcription_id;
    await client.stream(rawAudio(GO_FORWARD, 's16le', 16000), 32000, { chunkMs: 200, paced: false });
    client.send({ type: 'input_audio_buffer.commit' });
    const completed = await client.next('conversation.item.input_audio_transcription.completed');
    expect(String(completed.transcript)).toMatch(/^Go forward/);
    client.socket.close();

    const done = await eventually(
      'the session transcription completed',
      async () => {
        const response = await t
          .http()
          .get(`/v1/transcriptions/${transcriptionId}`)
          .set(bearer(owner.apiKey));
        return response.body.data?.status === 'completed' ? response.body.data : null;
      },
      30_000,
      100,
    );
    expect(done).toMatchObject({ metadata: { page: 'live' }, resultText: completed.transcript });
    const elsewhere = await t.http().get(`/v1/transcriptions/${transcriptionId}`).set(bearer(other.apiKey));
    expect(elsewhere.status).toBe(404);
    const listed = await t.http().get('/v1/transcriptions').set(bearer(other.apiKey));
    expect(listed.body.data).toEqual([]);

    // Used: a second session is refused, with the reason.
    await expectUnauthorized(withSecret(minted.body.value), /already used/);
  });

  it('takes the secret as Authorization: Bearer too, and answers with the only subprotocol offered', async () => {
    const workspace = await t.createWorkspace({ name: 'Secrets bearer' });
    const first = await mint(workspace.apiKey);
    expect(first.body.session).toMatchObject({
      audio: { input: { format: { type: 'audio/pcm', rate: 24000 } } },
    });
    const byHeader = RealtimeTestClient.connect(port, bearer(first.body.value));
    await byHeader.next('session.created');
    byHeader.socket.close();

    const second = await mint(workspace.apiKey, {});
    const onlyCredential = withSecret(second.body.value, [`${CREDENTIAL_PROTOCOL}${second.body.value}`]);
    await onlyCredential.opened;
    expect(onlyCredential.socket.protocol).toBe(`${CREDENTIAL_PROTOCOL}${second.body.value}`);
    await onlyCredential.next('session.created');
    onlyCredential.socket.close();
  });

  it('refuses an expired, unknown or foreign-looking secret with close 4001, naming why', async () => {
    const workspace = await t.createWorkspace({ name: 'Secrets refused' });
    const minted = await mint(workspace.apiKey, { expires_after: { seconds: 10 } });
    await t.app
      .get(DataSource)
      .query(
        `UPDATE realtime_client_secrets SET expires_on = now() - interval '1 second' WHERE workspace_id = $1`,
        [workspace.workspaceId],
      );
    await expectUnauthorized(withSecret(minted.body.value), /expired/);
    await expectUnauthorized(withSecret(`ek_${'x'.repeat(40)}`), /not known/);
    await expectUnauthorized(withSecret(`${minted.body.value.slice(0, -1)}y`), /not known/);
    // An API key in the subprotocol is resolved as a bearer one: a wrong one is refused as such.
    await expectUnauthorized(withSecret(`${workspace.apiKey}x`), /API key/);
  });

  it('opens one session per secret even when two connections race with it', async () => {
    const workspace = await t.createWorkspace({ name: 'Secrets race' });
    const minted = await mint(workspace.apiKey);
    const clients = [withSecret(minted.body.value), withSecret(minted.body.value)];
    const outcomes = await Promise.all(
      clients.map((client) =>
        eventually(
          'created or refused',
          async () => client.events.find((event) => ['session.created', 'error'].includes(event.type))?.type,
          30_000,
          20,
        ),
      ),
    );
    expect(outcomes.sort()).toEqual(['error', 'session.created']);
    for (const client of clients) client.socket.close();
  });

  it('refuses a mint without a credential (401) and a session it could not open (422 naming the field)', async () => {
    const owner = await t.createWorkspace({ name: 'Secrets validation' });
    const other = await t.createWorkspace({ name: 'Secrets validation other' });
    const anonymous = await t.http().post('/v1/realtime/client_secrets').send({});
    expectMatchesSpec(anonymous, 'createRealtimeClientSecret');
    expect(anonymous.status).toBe(401);

    const vocabulary = await t
      .http()
      .post('/v1/vocabularies')
      .set(bearer(other.apiKey))
      .send({ name: 'Theirs', words: ['theirs'] });
    const cases: Array<[unknown, string]> = [
      [{ expires_after: { seconds: 5 } }, 'expires_after.seconds'],
      [{ expires_after: { seconds: 7201 } }, 'expires_after.seconds'],
      [{ expires_after: { anchor: 'now' } }, 'expires_after.anchor'],
      [{ expires_after: null }, 'expires_after'],
      [{ expires_after: { seconds: null } }, 'expires_after.seconds'],
      [{ session: { type: 'realtime' } }, 'session.type'],
      [
        { session: { audio: { input: { format: { type: 'audio/pcm', rate: 44100 } } } } },
        'session.audio.input.format.rate',
      ],
      [
        { session: { audio: { input: { transcription: { model: 'nope' } } } } },
        'session.audio.input.transcription.model',
      ],
      [
        { session: { audio: { input: { transcription: { vocabulary_id: vocabulary.body.data.id } } } } },
        'session.audio.input.transcription.vocabulary_id',
      ],
      [{ session: {}, extra: true }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const response = await mint(owner.apiKey, body);
      expect({
        body,
        status: response.status,
        fields: Object.keys(response.body.errors?.fieldErrors ?? {}),
      }).toEqual({
        body,
        status: 422,
        fields: [field],
      });
    }
  });

  it("mints with the dashboard's access token and through the openai SDK's clientSecrets.create", async () => {
    const workspace = await t.createWorkspace({ name: 'Secrets SDK' });
    const byToken = await mint(t.issueToken(workspace.userId));
    expect(byToken.status).toBe(201);

    const openai = new OpenAI({ apiKey: workspace.apiKey, baseURL: `http://127.0.0.1:${port}/v1` });
    const secret = await openai.realtime.clientSecrets.create({
      expires_after: { anchor: 'created_at', seconds: 60 },
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: { model: 'gpt-4o-transcribe' },
          },
        },
      },
    });
    expect(secret.value).toMatch(/^ek_/);
    const client = withSecret(secret.value);
    const created = await client.next('session.created');
    expect(created.session).toMatchObject({
      audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } },
    });
    client.socket.close();
  });

  describe('a secret lives no longer than the credential that minted it', () => {
    /** A dashboard sign-in through HTTP: its access token (with `sid`) and refresh cookie. */
    async function signIn(): Promise<{ userId: string; accessToken: string; refreshToken: string }> {
      const user = await createUserWithPassword(t, PASSWORD);
      const response = await t.http().post('/v1/auth/login').send({ email: user.email, password: PASSWORD });
      expect(response.status).toBe(200);
      return {
        userId: user.userId,
        accessToken: response.body.data.accessToken as string,
        refreshToken: cookieValue(response, 'stt_refresh'),
      };
    }

    /** The upgrade with the secret is refused, saying its credential ended (and opens no session first). */
    async function expectEnded(secret: string): Promise<void> {
      const client = withSecret(secret);
      const first = await eventually(
        'session.created or error',
        async () => client.events.find((event) => ['session.created', 'error'].includes(event.type)),
        30_000,
        20,
      );
      if (first.type === 'session.created') client.socket.close();
      expect(first.type).toBe('error');
      await expectUnauthorized(client, /credential that minted the client secret has ended/);
    }

    it('a live sign-in’s secret opens a session; after sign-out its other secret is refused (4001)', async () => {
      const session = await signIn();
      const kept = await mint(session.accessToken);
      const orphaned = await mint(session.accessToken);
      expect([kept.status, orphaned.status]).toEqual([201, 201]);
      const client = withSecret(kept.body.value);
      await client.next('session.created');
      client.socket.close();

      await t.http().post('/v1/auth/logout').set('Cookie', `stt_refresh=${session.refreshToken}`).expect(204);
      await expectEnded(orphaned.body.value);
    });

    it('a new password ends the secrets its sign-ins minted', async () => {
      const session = await signIn();
      const minted = await mint(session.accessToken);
      const { email } = (await t.http().get('/v1/account/profile').set(bearer(session.accessToken))).body
        .data as { email: string };
      // The service `user:set-password` calls (test/e2e/cli-passwords.e2e-spec.ts runs the command).
      await t.app.get(UserPasswordService).setPassword(email, 'a brand new long password');
      await expectEnded(minted.body.value);
    });

    it('deleting the user (node dist/cli.js user:delete) ends the secrets they minted with a sign-in or a token', async () => {
      const session = await signIn();
      const bySignIn = await mint(session.accessToken);
      const byToken = await mint(t.issueToken(session.userId));
      await run('node', [CLI, 'user:delete', '--user', session.userId], {
        env: { ...process.env, ...baseTestEnvironment() },
      });
      await expectEnded(bySignIn.body.value);
      await expectEnded(byToken.body.value);
    });

    it('revoking or expiring the minting API key ends its secrets; another key’s secret still opens', async () => {
      const workspace = await t.createWorkspace({ name: 'Secrets of revoked keys' });
      const session = bearer(t.issueToken(workspace.userId));
      const key = async () => {
        const created = await t.http().post('/v1/api-keys').set(session).send({ name: 'page server' });
        expect(created.status).toBe(201);
        return created.body.data as { id: string; key: string };
      };
      const [revoked, expired, live] = [await key(), await key(), await key()];
      const fromRevoked = await mint(revoked.key);
      const fromExpired = await mint(expired.key);
      const fromLive = await mint(live.key);
      await t.http().delete(`/v1/api-keys/${revoked.id}`).set(session).expect(204);
      await t.app
        .get(DataSource)
        .query(`UPDATE api_keys SET expires_on = now() - interval '1 second' WHERE id = $1`, [expired.id]);

      await expectEnded(fromRevoked.body.value);
      await expectEnded(fromExpired.body.value);
      const client = withSecret(fromLive.body.value);
      await client.next('session.created');
      client.socket.close();
    });

    it(`caps the unused secrets of a workspace at ${SECRETS_CAP}: one more is 429 client-secret-limit; a used or orphaned one frees its place`, async () => {
      const workspace = await t.createWorkspace({ name: 'Secrets cap' });
      // Minted all at once: the cap holds under concurrency (mints of a workspace take turns).
      const burst = await Promise.all(
        Array.from({ length: SECRETS_CAP + 4 }, () =>
          mint(workspace.apiKey, { expires_after: { seconds: 600 } }),
        ),
      );
      expect(burst.filter((response) => response.status === 201)).toHaveLength(SECRETS_CAP);
      const refused = burst.find((response) => response.status === 429);
      expect(refused?.body).toMatchObject({
        type: expect.stringMatching(/\/client-secret-limit$/),
        status: 429,
        limit: SECRETS_CAP,
      });
      expect(String(refused?.body.detail)).toContain(`most allowed (${SECRETS_CAP})`);
      const retryAfter = Number(refused?.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(600);
      // Another workspace is not affected.
      expect((await mint((await t.createWorkspace({ name: 'Secrets cap other' })).apiKey)).status).toBe(201);

      // Using one frees its place.
      const minted = burst.filter((response) => response.status === 201);
      const client = withSecret(minted[0].body.value);
      await client.next('session.created');
      client.socket.close();
      expect((await mint(workspace.apiKey)).status).toBe(201);
      expect((await mint(workspace.apiKey)).status).toBe(429);

      // The secrets of a revoked key open nothing: they free their places too.
      const session = bearer(t.issueToken(workspace.userId));
      const other = await t.http().post('/v1/api-keys').set(session).send({ name: 'to revoke' });
      const keys = (await t.http().get('/v1/api-keys').set(session)).body.data as Array<{ id: string }>;
      const original = keys.find((key) => key.id !== other.body.data.id);
      await t.http().delete(`/v1/api-keys/${original?.id}`).set(session).expect(204);
      expect((await mint(other.body.data.key as string)).status).toBe(201);
    });
  });

  describe('the session cookie', () => {
    const cookie = (token: string) => `stt_session=${token}`;

    it('opens a session from the service’s own origin and from a configured one', async () => {
      const workspace = await t.createWorkspace({ name: 'Cookie same origin' });
      const token = t.issueToken(workspace.userId);
      for (const origin of [`http://127.0.0.1:${port}`, ALLOWED_ORIGIN]) {
        const client = RealtimeTestClient.connect(port, { Cookie: cookie(token), Origin: origin });
        await client.next('session.created');
        client.socket.close();
      }
    });

    it('refuses the cookie from a foreign origin or without one: 403 before the upgrade', async () => {
      const workspace = await t.createWorkspace({ name: 'Cookie foreign origin' });
      const token = t.issueToken(workspace.userId);
      for (const origin of ['https://evil.example', `http://127.0.0.1:${port + 1}`, 'null', undefined]) {
        const refusal = await handshakeRefusal(port, {
          Cookie: cookie(token),
          ...(origin === undefined ? {} : { Origin: origin }),
        });
        expect(refusal).toMatchObject({
          status: 403,
          contentType: 'application/problem+json',
          body: { status: 403, type: expect.stringMatching(/\/forbidden$/) },
        });
        expect(String(refusal.body.detail)).toMatch(/origin/);
      }
      // A foreign page with a client secret is what secrets are for: the cookie it also sends is not used.
      const minted = await mint(workspace.apiKey);
      const client = new RealtimeTestClient(
        new WebSocket(
          `ws://127.0.0.1:${port}/v1/realtime`,
          ['realtime', `${CREDENTIAL_PROTOCOL}${minted.body.value}`],
          {
            headers: { Cookie: cookie(token), Origin: 'https://evil.example' },
          },
        ),
      );
      await client.next('session.created');
      client.socket.close();
    });
  });
});
