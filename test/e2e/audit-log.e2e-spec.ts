import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { expectMatchesSpec } from '../support/openapi-contract';
import { RealtimeTestClient } from '../support/realtime';
import { cookieValue, createUserWithPassword } from '../support/sessions';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { asBuffer, insertTranscription, upload } from '../support/transcriptions';

const PROBLEMS = 'https://errors.transcription.example/problems';
const PASSWORD = 'correct horse battery staple';
const CLIP = testAudio('coqui-stt/LDC93S1.wav');

type AuditEvent = {
  id: string;
  at: string;
  action: string;
  workspaceId: string;
  actor: { type: string; userId: string | null; apiKeyId: string | null; credential: string | null };
  clientIp: string | null;
  requestId: string | null;
  target: { type: string; id: string | null } | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  details: Record<string, unknown> | null;
};

/**
 * The audit log through HTTP: every act recorded today, with its actor, client address, request id, target
 * and before/after; the filters, paging and the NDJSON export; another workspace sees none of it; and no
 * event holds a secret or transcript text. The service trusts the loopback proxy, so each act can state its
 * client address in X-Forwarded-For as a load balancer would.
 */
describe('Audit log', () => {
  let t: TestApp;
  let database: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api', TRUST_PROXY: 'loopback' });
    database = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  /** Every event of the workspace through the API (all pages), newest first, each page checked. */
  async function auditOf(credential: string, query: Record<string, string> = {}): Promise<AuditEvent[]> {
    const events: AuditEvent[] = [];
    let cursor: string | null = null;
    do {
      const response: Response = await t
        .http()
        .get('/v1/audit-events')
        .query({ ...query, limit: '100', ...(cursor ? { cursor } : {}) })
        .set(bearer(credential));
      expect(response.status).toBe(200);
      expectMatchesSpec(response, 'listAuditEvents');
      events.push(...(response.body.data as AuditEvent[]));
      cursor = response.body.cursor as string | null;
    } while (cursor);
    return events;
  }

  /** The one event of `action` about `targetId`. */
  async function theEvent(credential: string, action: string, targetId?: string): Promise<AuditEvent> {
    const events = await auditOf(credential, { action, ...(targetId ? { targetId } : {}) });
    expect(events).toHaveLength(1);
    return events[0];
  }

  describe('acts of a dashboard session', () => {
    let workspace: Awaited<ReturnType<TestApp['createWorkspace']>>;
    let token: string;
    const from = (address: string, requestId: string) => ({
      Authorization: `Bearer ${token}`,
      'X-Forwarded-For': address,
      'X-Request-Id': requestId,
    });

    beforeAll(async () => {
      workspace = await t.createWorkspace({ name: 'Audit acts' });
      token = t.issueToken(workspace.userId);
    });

    it('records an API key created and revoked, with the user, the credential, the client address and the request id', async () => {
      const created = await t
        .http()
        .post('/v1/api-keys')
        .set(from('203.0.113.9', 'audit-key-create'))
        .send({ name: 'CI pipeline', expiresInDays: 30 });
      expect(created.status).toBe(201);
      const keyId = created.body.data.id as string;
      const revoked = await t
        .http()
        .delete(`/v1/api-keys/${keyId}`)
        .set(from('203.0.113.10', 'audit-key-revoke'));
      expect(revoked.status).toBe(204);

      const made = await theEvent(token, 'api_key.created', keyId);
      expect(made).toMatchObject({
        workspaceId: workspace.workspaceId,
        actor: { type: 'user', userId: workspace.userId, apiKeyId: null, credential: 'session' },
        clientIp: '203.0.113.9',
        requestId: 'audit-key-create',
        target: { type: 'api_key', id: keyId },
        before: null,
        after: {
          name: 'CI pipeline',
          prefix: created.body.data.prefix,
          expiresOn: created.body.data.expiresAt,
          userId: workspace.userId,
        },
      });
      const ended = await theEvent(token, 'api_key.revoked', keyId);
      expect(ended).toMatchObject({
        clientIp: '203.0.113.10',
        requestId: 'audit-key-revoke',
        target: { type: 'api_key', id: keyId },
        before: { name: 'CI pipeline', prefix: created.body.data.prefix },
        after: null,
      });
      // A second revocation is a 404 and no act: no second event.
      expect((await t.http().delete(`/v1/api-keys/${keyId}`).set(from('203.0.113.10', 'again'))).status).toBe(
        404,
      );
      expect(await auditOf(token, { action: 'api_key.revoked', targetId: keyId })).toHaveLength(1);
    });

    it('records a webhook endpoint created, changed, its secret rotated and deleted, showing its URL as origin and fingerprint', async () => {
      const url = 'http://127.0.0.1:9/hooks/T000/B000/PATHSECRET?token=QUERYSECRET';
      const created = await t
        .http()
        .post('/v1/webhooks')
        .set(from('198.51.100.1', 'audit-webhook-create'))
        .send({ url, events: ['transcription.completed'] });
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;
      const changed = await t
        .http()
        .patch(`/v1/webhooks/${id}`)
        .set(from('198.51.100.1', 'audit-webhook-update'))
        .send({ events: ['transcription.completed', 'transcription.failed'], isActive: false });
      expect(changed.status).toBe(200);
      const rotated = await t
        .http()
        .post(`/v1/webhooks/${id}/rotate-secret`)
        .set(from('198.51.100.1', 'audit-webhook-rotate'));
      expect(rotated.status).toBe(200);
      expect(
        (await t.http().delete(`/v1/webhooks/${id}`).set(from('198.51.100.1', 'audit-webhook-delete')))
          .status,
      ).toBe(204);

      const shown = { origin: 'http://127.0.0.1:9', fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/) };
      expect(await theEvent(token, 'webhook.created', id)).toMatchObject({
        requestId: 'audit-webhook-create',
        target: { type: 'webhook', id },
        after: { url: shown, events: ['transcription.completed'], isActive: true },
      });
      expect(await theEvent(token, 'webhook.updated', id)).toMatchObject({
        before: { events: ['transcription.completed'], isActive: true },
        after: { events: ['transcription.completed', 'transcription.failed'], isActive: false },
      });
      expect(await theEvent(token, 'webhook.secret_rotated', id)).toMatchObject({
        details: { previousSecretExpiresOn: rotated.body.data.previousSecretExpiresOn },
      });
      expect(await theEvent(token, 'webhook.deleted', id)).toMatchObject({
        before: { url: shown, isActive: false },
      });
      const all = JSON.stringify(await auditOf(token, { targetId: id }));
      for (const secret of [
        'PATHSECRET',
        'QUERYSECRET',
        created.body.data.secret,
        rotated.body.data.secret,
      ]) {
        expect(all).not.toContain(secret);
      }
    });

    it('records the settings: the low-balance threshold (billing) and the retention, before and after, in one request', async () => {
      const response = await t
        .http()
        .patch('/v1/account/settings')
        .set(from('198.51.100.2', 'audit-settings'))
        .send({ lowBalanceThreshold: 2.5, retention: { audioDays: 7, transcriptDays: null } });
      expect(response.status).toBe(200);
      expect(await theEvent(token, 'billing.low_balance_threshold_changed')).toMatchObject({
        requestId: 'audit-settings',
        target: { type: 'workspace', id: workspace.workspaceId },
        before: { lowBalanceThreshold: 1 },
        after: { lowBalanceThreshold: 2.5 },
      });
      expect(await theEvent(token, 'workspace.retention_changed')).toMatchObject({
        requestId: 'audit-settings',
        before: { audioDays: null, transcriptDays: null },
        after: { audioDays: 7, transcriptDays: null },
      });
      // The same values again change nothing: no event.
      await t
        .http()
        .patch('/v1/account/settings')
        .set(from('198.51.100.2', 'audit-settings-again'))
        .send({ lowBalanceThreshold: 2.5, retention: { audioDays: 7 } })
        .expect(200);
      expect(await auditOf(token, { action: 'workspace.retention_changed' })).toHaveLength(1);
      expect(await auditOf(token, { action: 'billing.low_balance_threshold_changed' })).toHaveLength(1);
    });

    it('records a transcription deleted with what it was, never its text', async () => {
      const transcription = await insertTranscription(t, workspace.workspaceId, {
        resultText: 'the confidential board minutes',
      });
      expect(
        (
          await t
            .http()
            .delete(`/v1/transcriptions/${transcription.id}`)
            .set(from('198.51.100.3', 'audit-delete'))
        ).status,
      ).toBe(204);
      const deleted = await theEvent(token, 'transcription.deleted', transcription.id);
      expect(deleted).toMatchObject({
        requestId: 'audit-delete',
        target: { type: 'transcription', id: transcription.id },
        before: { status: 'completed', model: 'standard', originalFileName: 'meeting.wav', duration: 4.2 },
      });
      expect(JSON.stringify(deleted)).not.toContain('confidential');
    });
  });

  it('records each download or play of the audio, not each seek, before its first byte, by the API key', async () => {
    const workspace = await t.createWorkspace({ name: 'Audit audio' });
    const created = await upload(t, workspace.apiKey, CLIP);
    expect(created.status).toBe(202);
    const id = created.body.data.id as string;
    const audio = (range?: string) => {
      const request = t
        .http()
        .get(`/v1/transcriptions/${id}/audio`)
        .set(bearer(workspace.apiKey))
        .set('X-Request-Id', `audio-${range ?? 'whole'}`)
        .buffer(true)
        .parse(asBuffer);
      return range ? request.set('Range', range) : request;
    };
    expect((await audio()).status).toBe(200);
    expect((await audio('bytes=0-99')).status).toBe(206);
    expect((await audio('bytes=100-199')).status).toBe(206);
    expect((await audio('bytes=-10')).status).toBe(206);
    const events = await auditOf(workspace.apiKey, { action: 'transcription.audio_downloaded' });
    expect(events.map((event) => event.requestId).sort()).toEqual(['audio-bytes=0-99', 'audio-whole']);
    const keyId = events[0].actor.apiKeyId;
    expect(events[0]).toMatchObject({
      actor: { type: 'api_key', userId: null, apiKeyId: expect.any(String), credential: 'api_key' },
      target: { type: 'transcription', id },
    });
    expect(await theEvent(workspace.apiKey, 'api_key.used_from_new_network', keyId!)).toBeDefined();
  });

  describe('sign-in', () => {
    const login = (email: string, password: string, requestId: string) =>
      t
        .http()
        .post('/v1/auth/login')
        .set('X-Forwarded-For', '192.0.2.44')
        .set('X-Request-Id', requestId)
        .send({ email, password });
    const refresh = (token: string) =>
      t.http().post('/v1/auth/refresh').set('Cookie', `stt_refresh=${token}`);

    it('records a sign-in, a failed one of a known user, and a sign-out, each of the sign-in (session) or the user', async () => {
      const user = await createUserWithPassword(t, PASSWORD);
      const failed = await login(user.email, 'wrong password entirely', 'audit-login-failed');
      expect(failed.status).toBe(401);
      const signedIn = await login(user.email, PASSWORD, 'audit-login');
      expect(signedIn.status).toBe(200);
      const accessToken = signedIn.body.data.accessToken as string;
      const sessionId = (
        JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()) as { sid: string }
      ).sid;
      await t
        .http()
        .post('/v1/auth/logout')
        .set('Cookie', `stt_refresh=${cookieValue(signedIn, 'stt_refresh')}`)
        .set('X-Request-Id', 'audit-logout')
        .expect(204);

      const reader = t.issueToken(user.userId);
      expect(await theEvent(reader, 'auth.sign_in_failed')).toMatchObject({
        workspaceId: user.workspaceId,
        actor: { type: 'anonymous', userId: null, apiKeyId: null, credential: 'password' },
        clientIp: '192.0.2.44',
        requestId: 'audit-login-failed',
        target: { type: 'user', id: user.userId },
      });
      expect(await theEvent(reader, 'auth.sign_in')).toMatchObject({
        actor: { type: 'user', userId: user.userId, credential: 'password' },
        clientIp: '192.0.2.44',
        requestId: 'audit-login',
        target: { type: 'session', id: sessionId },
        details: { method: 'password' },
      });
      expect(await theEvent(reader, 'auth.sign_out')).toMatchObject({
        actor: { type: 'user', userId: user.userId, credential: 'refresh_token' },
        requestId: 'audit-logout',
        target: { type: 'session', id: sessionId },
      });
      const all = JSON.stringify(await auditOf(reader));
      for (const secret of [
        PASSWORD,
        accessToken,
        cookieValue(signedIn, 'stt_refresh'),
        'wrong password entirely',
      ]) {
        expect(all).not.toContain(secret);
      }
    });

    it('writes no event for an email no user has: it belongs to no workspace', async () => {
      const count = async () =>
        Number((await database.query<Array<{ n: string }>>('SELECT count(*) AS n FROM audit_events'))[0].n);
      const before = await count();
      const failed = await login(`nobody-${randomUUID()}@example.com`, PASSWORD, 'audit-unknown');
      expect(failed.status).toBe(401);
      expect(await count()).toBe(before);
    });

    it('records a replayed refresh token, which ends the sign-in, as done by nobody proven', async () => {
      const user = await createUserWithPassword(t, PASSWORD);
      const signedIn = await login(user.email, PASSWORD, 'audit-replay-login');
      const first = cookieValue(signedIn, 'stt_refresh');
      expect((await refresh(first)).status).toBe(200);
      // Out of the reuse grace: the copy is a replay.
      await database.query(
        `UPDATE refresh_tokens SET rotated_on = rotated_on - interval '1 hour' WHERE user_id = $1 AND rotated_on IS NOT NULL`,
        [user.userId],
      );
      const replay = await refresh(first).set('X-Request-Id', 'audit-replay');
      expect(replay.status).toBe(401);
      expect(replay.body.type).toBe(`${PROBLEMS}/invalid-refresh-token`);
      const reader = t.issueToken(user.userId);
      expect(await theEvent(reader, 'auth.refresh_token_reused')).toMatchObject({
        actor: { type: 'anonymous', credential: 'refresh_token' },
        requestId: 'audit-replay',
        target: { type: 'session' },
        details: { userId: user.userId },
      });
      // Replaying again ends nothing more: no second event.
      expect((await refresh(first)).status).toBe(401);
      expect(await auditOf(reader, { action: 'auth.refresh_token_reused' })).toHaveLength(1);
    });
  });

  describe('an API key used from a new network', () => {
    it('is recorded once per IPv4 /24 (or IPv6 /64), on HTTP requests and realtime upgrades alike', async () => {
      const workspace = await t.createWorkspace({ name: 'Audit networks' });
      const use = (address: string, requestId: string) =>
        t
          .http()
          .get('/v1/account/balance')
          .set(bearer(workspace.apiKey))
          .set('X-Forwarded-For', address)
          .set('X-Request-Id', requestId);
      expect((await use('203.0.113.5', 'net-1')).status).toBe(200);
      expect((await use('203.0.113.77', 'net-2')).status).toBe(200);
      expect((await use('198.51.100.20', 'net-3')).status).toBe(200);
      expect((await use('2001:db8:5:6::1', 'net-4')).status).toBe(200);
      expect((await use('2001:db8:5:6::ffff', 'net-5')).status).toBe(200);

      const port = await t.listeningPort();
      const client = RealtimeTestClient.connect(port, {
        Authorization: `Bearer ${workspace.apiKey}`,
        'X-Forwarded-For': '192.0.2.200',
        'X-Request-Id': 'net-realtime',
      });
      await client.opened;
      client.socket.close();

      const events = await auditOf(workspace.apiKey, { action: 'api_key.used_from_new_network' });
      const byNetwork = Object.fromEntries(
        events.map((event) => [event.details?.network, { ip: event.clientIp, requestId: event.requestId }]),
      );
      expect(byNetwork).toEqual({
        '203.0.113.0/24': { ip: '203.0.113.5', requestId: 'net-1' },
        '198.51.100.0/24': { ip: '198.51.100.20', requestId: 'net-3' },
        '2001:db8:5:6::/64': { ip: '2001:db8:5:6::1', requestId: 'net-4' },
        '192.0.2.0/24': { ip: '192.0.2.200', requestId: 'net-realtime' },
        // The audit reads themselves come from the loopback address.
        '127.0.0.0/24': expect.any(Object),
      });
      for (const event of events) {
        expect(event.actor).toEqual({
          type: 'api_key',
          userId: null,
          apiKeyId: event.target?.id,
          credential: 'api_key',
        });
      }
    });
  });

  describe('reading the log', () => {
    let workspace: Awaited<ReturnType<TestApp['createWorkspace']>>;
    let token: string;
    let keyIds: string[];

    beforeAll(async () => {
      workspace = await t.createWorkspace({ name: 'Audit reading' });
      token = t.issueToken(workspace.userId);
      keyIds = [];
      for (let index = 0; index < 5; index++) {
        const created = await t
          .http()
          .post('/v1/api-keys')
          .set(bearer(token))
          .send({ name: `key ${index}` });
        keyIds.push(created.body.data.id as string);
      }
      await t.http().delete(`/v1/api-keys/${keyIds[0]}`).set(bearer(token)).expect(204);
    });

    it('pages newest first with the cursor: every event once, in order, and hasMore false at the end', async () => {
      const seen: AuditEvent[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const response = await t
          .http()
          .get('/v1/audit-events')
          .query({ action: 'api_key.created', limit: '2', ...(cursor ? { cursor } : {}) })
          .set(bearer(token));
        expect(response.status).toBe(200);
        expectMatchesSpec(response, 'listAuditEvents');
        seen.push(...(response.body.data as AuditEvent[]));
        pages += 1;
        if (!response.body.hasMore) {
          expect(response.body.cursor).toBeNull();
          break;
        }
        cursor = response.body.cursor as string;
        expect(cursor).toBe(seen[seen.length - 1].id);
      }
      // The operator's first key (workspace:create) and the five made here.
      expect(seen).toHaveLength(6);
      expect(pages).toBe(3);
      expect(new Set(seen.map((event) => event.id)).size).toBe(6);
      expect(seen.slice(0, 5).map((event) => event.target?.id)).toEqual([...keyIds].reverse());
      expect(seen[5].actor).toEqual({ type: 'operator', userId: null, apiKeyId: null, credential: 'cli' });
      const order = seen.map((event) => [event.at, event.id].join(' '));
      expect(order).toEqual([...order].sort().reverse());
    });

    it('filters by actor, actor type, action, target and time range', async () => {
      const byUser = await auditOf(token, { actorId: workspace.userId });
      expect(byUser.map((event) => event.action).sort()).toEqual([
        ...Array<string>(5).fill('api_key.created'),
        'api_key.revoked',
      ]);
      expect((await auditOf(token, { actorType: 'operator' })).map((event) => event.action)).toEqual([
        'api_key.created',
      ]);
      const aboutFirst = await auditOf(token, { targetType: 'api_key', targetId: keyIds[0] });
      expect(aboutFirst.map((event) => event.action)).toEqual(['api_key.revoked', 'api_key.created']);
      expect(await auditOf(token, { targetType: 'webhook', targetId: keyIds[0] })).toEqual([]);

      const all = await auditOf(token);
      const middle = all[3];
      const later = await auditOf(token, { from: middle.at });
      expect(later.map((event) => event.id)).toContain(middle.id);
      expect(later.every((event) => event.at >= middle.at)).toBe(true);
      const earlier = await auditOf(token, { to: middle.at });
      expect(earlier.map((event) => event.id)).not.toContain(middle.id);
      expect(earlier.every((event) => event.at < middle.at)).toBe(true);
      expect(await auditOf(token, { from: '2000-01-01T00:00:00Z', to: '2000-01-02T00:00:00Z' })).toEqual([]);
    });

    it('refuses filters of the wrong kind, to before from, and a cursor that is no event of the workspace (422)', async () => {
      const other = await t.createWorkspace({ name: 'Audit other cursor' });
      const [othersEvent] = await auditOf(other.apiKey);
      for (const [query, field] of [
        [{ action: 'api_key.exploded' }, 'action'],
        [{ actorType: 'robot' }, 'actorType'],
        [{ targetType: 'planet' }, 'targetType'],
        [{ actorId: 'not-a-uuid' }, 'actorId'],
        [{ from: 'yesterday' }, 'from'],
        [{ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'to'],
        [{ limit: '101' }, 'limit'],
        [{ cursor: randomUUID() }, 'cursor'],
        [{ cursor: othersEvent.id }, 'cursor'],
      ] as const) {
        const response = await t.http().get('/v1/audit-events').query(query).set(bearer(token));
        expect({ query, status: response.status }).toEqual({ query, status: 422 });
        expectMatchesSpec(response, 'listAuditEvents');
        expect(Object.keys(response.body.errors.fieldErrors as object)).toEqual([field]);
      }
    });

    it('exports the matching events as NDJSON, oldest first, ending with the export’s own event', async () => {
      const response = await t
        .http()
        .get('/v1/audit-events/export')
        .query({ targetType: 'api_key' })
        .set(bearer(token))
        .set('X-Request-Id', 'audit-export')
        .buffer(true)
        .parse(asBuffer);
      expect(response.status).toBe(200);
      expectMatchesSpec(response, 'exportAuditEvents');
      expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
      expect(response.headers['content-disposition']).toBe('attachment; filename="audit-events.ndjson"');
      const text = (response.body as Buffer).toString('utf8');
      expect(text.endsWith('\n')).toBe(true);
      const lines = text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as AuditEvent);
      // Each line is an AuditEvent of the contract: checked as a page of the list would be.
      expectMatchesSpec(
        {
          status: 200,
          headers: { ...response.headers, 'content-type': 'application/json' },
          body: { data: lines, cursor: null, hasMore: false },
        },
        'listAuditEvents',
      );
      const listed = await auditOf(token, { targetType: 'api_key' });
      expect(lines.map((event) => event.id)).toEqual(listed.map((event) => event.id).reverse());
      // The export is recorded (before it was sent), with its filters; its target type is not api_key.
      const recorded = await theEvent(token, 'audit_log.exported');
      expect(recorded).toMatchObject({
        requestId: 'audit-export',
        target: { type: 'audit_log', id: null },
        details: { filters: { targetType: 'api_key' } },
      });

      const whole = await t
        .http()
        .get('/v1/audit-events/export')
        .set(bearer(token))
        .buffer(true)
        .parse(asBuffer);
      const wholeLines = (whole.body as Buffer)
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as AuditEvent);
      expect(wholeLines[wholeLines.length - 1]).toMatchObject({
        action: 'audit_log.exported',
        details: { filters: {} },
      });
    });

    it('refuses a bad filter on the export before anything is sent (422 problem)', async () => {
      const response = await t
        .http()
        .get('/v1/audit-events/export')
        .query({ action: 'nope' })
        .set(bearer(token));
      expect(response.status).toBe(422);
      expectMatchesSpec(response, 'exportAuditEvents');
    });
  });

  describe('isolation and access', () => {
    it('shows a workspace only its own events: another workspace’s are not listed, filtered or exported', async () => {
      const mine = await t.createWorkspace({ name: 'Audit mine' });
      const theirs = await t.createWorkspace({ name: 'Audit theirs' });
      const theirToken = t.issueToken(theirs.userId);
      const created = await t.http().post('/v1/api-keys').set(bearer(theirToken)).send({ name: 'theirs' });
      const theirKeyId = created.body.data.id as string;

      const mineEvents = await auditOf(mine.apiKey);
      expect(mineEvents.length).toBeGreaterThan(0);
      expect(mineEvents.every((event) => event.workspaceId === mine.workspaceId)).toBe(true);
      expect(await auditOf(mine.apiKey, { targetId: theirKeyId })).toEqual([]);
      expect(await auditOf(mine.apiKey, { actorId: theirs.userId })).toEqual([]);
      const exported = await t
        .http()
        .get('/v1/audit-events/export')
        .set(bearer(mine.apiKey))
        .buffer(true)
        .parse(asBuffer);
      expect((exported.body as Buffer).toString('utf8')).not.toContain(theirs.workspaceId);
      expect((exported.body as Buffer).toString('utf8')).not.toContain(theirKeyId);
    });

    it('needs a credential (401) and offers no way to change or delete an event (404)', async () => {
      const anonymous = await t.http().get('/v1/audit-events');
      expect(anonymous.status).toBe(401);
      expectMatchesSpec(anonymous, 'listAuditEvents');
      const workspace = await t.createWorkspace({ name: 'Audit no delete' });
      const [event] = await auditOf(workspace.apiKey);
      for (const method of ['delete', 'patch', 'put'] as const) {
        for (const path of ['/v1/audit-events', `/v1/audit-events/${event.id}`]) {
          const response = await t.http()[method](path).set(bearer(workspace.apiKey));
          expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
        }
      }
      expect(await auditOf(workspace.apiKey)).toContainEqual(event);
    });
  });

  it('holds no secret and no transcript text anywhere, in any column of any event', async () => {
    // Acts that handle secrets and text, then a scan of the stored rows (not only of what the API shows).
    const workspace = await t.createWorkspace({ name: 'Audit secrets' });
    const token = t.issueToken(workspace.userId);
    const key = await t.http().post('/v1/api-keys').set(bearer(token)).send({ name: 'scan' });
    const apiKey = key.body.data.key as string;
    await t.http().get('/v1/account/balance').set(bearer(apiKey)).expect(200);
    const hook = await t
      .http()
      .post('/v1/webhooks')
      .set(bearer(token))
      .send({ url: 'http://127.0.0.1:9/h/SECRETPATH', events: ['balance.low'] });
    const rotated = await t
      .http()
      .post(`/v1/webhooks/${hook.body.data.id as string}/rotate-secret`)
      .set(bearer(token));
    const transcription = await insertTranscription(t, workspace.workspaceId, {
      resultText: 'whispered passphrase',
    });
    await t.http().delete(`/v1/transcriptions/${transcription.id}`).set(bearer(apiKey)).expect(204);
    await t
      .http()
      .delete(`/v1/api-keys/${key.body.data.id as string}`)
      .set(bearer(token))
      .expect(204);

    const rows = await database.query<Array<{ row: string }>>(
      'SELECT row_to_json(e)::text AS row FROM audit_events e WHERE workspace_id = $1',
      [workspace.workspaceId],
    );
    expect(rows.length).toBeGreaterThanOrEqual(7);
    const stored = rows.map((row) => row.row).join('\n');
    for (const secret of [
      apiKey,
      workspace.apiKey,
      hook.body.data.secret as string,
      rotated.body.data.secret as string,
      'SECRETPATH',
      'whispered passphrase',
      'Hello there',
      token,
    ]) {
      expect({ secret, found: stored.includes(secret) }).toEqual({ secret, found: false });
    }
  });
});
