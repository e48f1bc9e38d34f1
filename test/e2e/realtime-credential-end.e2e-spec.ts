import { DataSource } from 'typeorm';
import { WebSocket } from 'ws';
import { expectMatchesSpec } from '../support/openapi-contract';
import { rawAudio, RealtimeTestClient } from '../support/realtime';
import { testAudio } from '../support/shared-paths';
import { cookieValue, createUserWithPassword } from '../support/sessions';
import { bearer, startTestApp, TestApp } from '../support/test-app';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // 2.8 s: "go forward ten meters"
const BYTES_PER_SECOND = 32_000; // PCM16 at 16 kHz
const PASSWORD = 'a long enough test password';
const CREDENTIAL_PROTOCOL = 'openai-insecure-api-key.';

/**
 * A live session ends when the credential it was opened with does (the guide: "a sign-out, a revoked key, a
 * removed member ends access at once"): before this, a socket kept transcribing after its API key was revoked
 * or its sign-in signed out, until the client closed it. Every server event is checked against asyncapi.yaml
 * (RealtimeTestClient), every HTTP answer against openapi.yaml; the session pays for what it delivered.
 */
describe('Realtime sessions end with their credential', () => {
  let t: TestApp;
  let port: number;
  let db: DataSource;
  beforeAll(async () => {
    t = await startTestApp({ MINIMUM_BALANCE_EUR: '0.0001', REALTIME_CREDENTIAL_CHECK_MS: '200' });
    port = await t.listeningPort();
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  /** "go forward ten meters" and a second of silence that ends the utterance: one transcript delivered. */
  const speech = () => Buffer.concat([rawAudio(GO_FORWARD, 's16le', 16000), Buffer.alloc(BYTES_PER_SECOND)]);

  async function deliverOneTranscript(client: RealtimeTestClient): Promise<string> {
    const id = await client.transcriptionId();
    client.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    });
    await client.next('session.updated');
    await client.stream(speech(), BYTES_PER_SECOND, { chunkMs: 100, paced: false });
    const delivered = await client.next('conversation.item.input_audio_transcription.completed');
    expect(String(delivered.transcript)).toMatch(/^Go forward/);
    return id;
  }

  async function expectCredentialEnded(client: RealtimeTestClient): Promise<void> {
    const error = await client.next('error');
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'credential_ended' });
    expect(await client.whenClosed()).toEqual({ code: 4001, reason: 'credential_ended' });
  }

  async function charged(workspaceId: string, transcriptionId: string): Promise<number> {
    const rows: Array<{ amount_micro: string }> = await db.query(
      `SELECT amount_micro FROM balance_ledger WHERE workspace_id = $1 AND transcription_id = $2 AND kind = 'charge'`,
      [workspaceId, transcriptionId],
    );
    return rows.reduce((sum, row) => sum - Number(row.amount_micro), 0);
  }

  async function keyIdOf(userId: string): Promise<string> {
    const listed = await t
      .http()
      .get('/v1/api-keys')
      .set(bearer(t.issueToken(userId)));
    expectMatchesSpec(listed, 'listApiKeys');
    return (listed.body.data as Array<{ id: string }>)[0].id;
  }

  it('revoking the API key closes its open session (4001 credential_ended); what it delivered is charged', async () => {
    const workspace = await t.createWorkspace({
      name: 'Key revoked live',
      freeTranscriptions: 0,
      balanceEur: 1,
    });
    const client = RealtimeTestClient.connect(port, bearer(workspace.apiKey));
    const id = await deliverOneTranscript(client);

    const revoked = await t
      .http()
      .delete(`/v1/api-keys/${await keyIdOf(workspace.userId)}`)
      .set(bearer(t.issueToken(workspace.userId)));
    expectMatchesSpec(revoked, 'revokeApiKey');
    expect(revoked.status).toBe(204);
    await expectCredentialEnded(client);
    // 3.8 s received: 4 started seconds at the standard price (50 micro-EUR each), charged once.
    expect(await charged(workspace.workspaceId, id)).toBe(200);
    const detail = await t
      .http()
      .get(`/v1/transcriptions/${id}`)
      .set(bearer(t.issueToken(workspace.userId)));
    expect(detail.body.data).toMatchObject({ status: 'completed' });
  });

  it('signing out closes a session opened with that sign-in', async () => {
    const user = await createUserWithPassword(t, PASSWORD);
    const login = await t.http().post('/v1/auth/login').send({ email: user.email, password: PASSWORD });
    expect(login.status).toBe(200);
    const client = RealtimeTestClient.connect(port, bearer(login.body.data.accessToken as string));
    await deliverOneTranscript(client);

    const out = await t
      .http()
      .post('/v1/auth/logout')
      .set('Cookie', `stt_refresh=${cookieValue(login, 'stt_refresh')}`);
    expect(out.status).toBe(204);
    await expectCredentialEnded(client);
  });

  it('a session opened with a client secret closes when the key that minted the secret is revoked', async () => {
    const workspace = await t.createWorkspace({
      name: 'Secret minter revoked',
      freeTranscriptions: 0,
      balanceEur: 1,
    });
    const minted = await t.http().post('/v1/realtime/client_secrets').set(bearer(workspace.apiKey));
    expectMatchesSpec(minted, 'createRealtimeClientSecret');
    const client = new RealtimeTestClient(
      new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?model=gpt-4o-transcribe`, [
        'realtime',
        `${CREDENTIAL_PROTOCOL}${minted.body.value as string}`,
      ]),
    );
    await client.next('session.created');

    await t
      .http()
      .delete(`/v1/api-keys/${await keyIdOf(workspace.userId)}`)
      .set(bearer(t.issueToken(workspace.userId)))
      .expect(204);
    await expectCredentialEnded(client);
  });

  /** A member of `role` in a new workspace of its owner: the member's access token and user id, the owner's token. */
  async function memberOf(role: string) {
    const owner = await t.createWorkspace({ name: `Live ${role}`, freeTranscriptions: 0, balanceEur: 1 });
    const ownerToken = bearer(t.issueToken(owner.userId));
    const invited = await t
      .http()
      .post('/v1/workspace/invitations')
      .set(ownerToken)
      .send({ email: `live-${role}-${Date.now()}-${Math.random()}@example.com`, role });
    const accepted = await t
      .http()
      .post('/v1/auth/invitations/accept')
      .send({ token: invited.body.data.token, password: PASSWORD });
    expect(accepted.status).toBe(200);
    return {
      token: bearer(accepted.body.data.accessToken as string),
      userId: accepted.body.data.user.id as string,
      ownerToken,
    };
  }

  it('removing a member closes the sessions they opened; making them viewer does too', async () => {
    const removed = await memberOf('member');
    const first = RealtimeTestClient.connect(port, removed.token);
    await deliverOneTranscript(first);
    const gone = await t.http().delete(`/v1/workspace/members/${removed.userId}`).set(removed.ownerToken);
    expectMatchesSpec(gone, 'removeMember');
    expect(gone.status).toBe(204);
    await expectCredentialEnded(first);

    const demoted = await memberOf('member');
    const second = RealtimeTestClient.connect(port, demoted.token);
    await deliverOneTranscript(second);
    const changed = await t
      .http()
      .patch(`/v1/workspace/members/${demoted.userId}`)
      .set(demoted.ownerToken)
      .send({ role: 'viewer' });
    expect(changed.status).toBe(200);
    await expectCredentialEnded(second);
  });

  it('a viewer, or a key without transcriptions:write, cannot open a session (4003 forbidden naming the permission)', async () => {
    const viewer = await memberOf('viewer');
    const refusedViewer = RealtimeTestClient.connect(port, viewer.token);
    const error = await refusedViewer.next('error');
    expect(error.error).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('transcriptions:write'),
    });
    expect(await refusedViewer.whenClosed()).toEqual({ code: 4003, reason: 'forbidden' });

    const reader = await t
      .http()
      .post('/v1/api-keys')
      .set(viewer.ownerToken)
      .send({ name: 'reader', scopes: ['transcriptions:read'] });
    const refusedKey = RealtimeTestClient.connect(port, bearer(reader.body.data.key as string));
    expect((await refusedKey.next('error')).error).toMatchObject({ code: 'forbidden' });
    expect(await refusedKey.whenClosed()).toEqual({ code: 4003, reason: 'forbidden' });
  });

  it('a live credential keeps its session open across many checks', async () => {
    const workspace = await t.createWorkspace({ name: 'Key kept', freeTranscriptions: 0, balanceEur: 1 });
    const client = RealtimeTestClient.connect(port, bearer(workspace.apiKey));
    await deliverOneTranscript(client);
    // A second utterance after at least a few checks (200 ms each) still arrives: the session was not ended.
    await client.stream(speech(), BYTES_PER_SECOND, { chunkMs: 100, paced: true });
    await client.next('conversation.item.input_audio_transcription.completed', 2);
    expect(client.of('error')).toEqual([]);
    client.socket.close();
    await client.whenClosed();
  });
});
