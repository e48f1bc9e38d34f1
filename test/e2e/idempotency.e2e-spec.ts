import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { LedgerService } from '../../src/billing/ledger.service';
import { IdempotencyService } from '../../src/transcriptions/idempotency.service';
import { testAudio } from '../support/shared-paths';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { upload } from '../support/transcriptions';

const problem = (slug: string) => `https://errors.transcription.example/problems/${slug}`;

/**
 * An Idempotency-Key never gets stuck and never yields a second job. The answer is stored
 * in the transaction that creates the job; replays are byte-identical; expired records are swept; a refused
 * first request releases the key (docs/decisions.md, "Idempotency-Key").
 */
describe('Idempotency-Key on POST /v1/transcriptions', () => {
  let t: TestApp;
  let db: DataSource;
  let apiKey: string;
  let workspaceId: string;
  const wav = testAudio('pocketsphinx/goforward.wav');

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    db = t.app.get(DataSource);
    ({ apiKey, workspaceId } = await t.createWorkspace({ name: 'Idempotency', balanceEur: 5 }));
  });
  afterAll(() => t.close());

  const jobsOf = async (id: string): Promise<number> =>
    Number(
      (
        await db.query<Array<{ count: string }>>(
          'SELECT count(*) AS count FROM transcriptions WHERE workspace_id = $1',
          [id],
        )
      )[0].count,
    );

  it('replays the first 202 byte for byte, with the same content type', async () => {
    const key = randomUUID();
    const first = await upload(
      t,
      apiKey,
      wav,
      { model: 'standard', language: 'en' },
      { 'Idempotency-Key': key },
    );
    const second = await upload(
      t,
      apiKey,
      wav,
      { model: 'standard', language: 'en' },
      { 'Idempotency-Key': key },
    );
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.text).toBe(first.text);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.headers['content-length']).toBe(first.headers['content-length']);
  });

  it('a failure between creating the job and storing the answer leaves neither: the retry creates exactly one job', async () => {
    const { apiKey: key2, workspaceId: ws2 } = await t.createWorkspace({ name: 'Fault', balanceEur: 5 });
    // A DB-level fault, once: the statement that stores the key's answer fails (as if the process died there).
    await db.query(`CREATE SEQUENCE IF NOT EXISTS idempotency_fault_once`);
    await db.query(`
      CREATE OR REPLACE FUNCTION idempotency_fault() RETURNS trigger AS $$
      BEGIN
        IF NEW.workspace_id = '${ws2}' AND NEW.state = 'completed' AND nextval('idempotency_fault_once') = 1 THEN
          RAISE EXCEPTION 'injected fault';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await db.query(`
      CREATE TRIGGER idempotency_fault BEFORE UPDATE ON idempotency_records
      FOR EACH ROW EXECUTE FUNCTION idempotency_fault()`);
    try {
      const key = randomUUID();
      const failed = await upload(t, key2, wav, {}, { 'Idempotency-Key': key });
      expect(failed.status).toBe(500);
      expect(await jobsOf(ws2)).toBe(0);
      const retried = await upload(t, key2, wav, {}, { 'Idempotency-Key': key });
      expect(retried.status).toBe(202);
      const replayed = await upload(t, key2, wav, {}, { 'Idempotency-Key': key });
      expect(replayed.text).toBe(retried.text);
      expect(await jobsOf(ws2)).toBe(1);
    } finally {
      await db.query(`DROP TRIGGER idempotency_fault ON idempotency_records`);
    }
  });

  it('a claim left in flight by a crashed process is taken over once its lease has run out', async () => {
    const key = randomUUID();
    await db.query(
      `INSERT INTO idempotency_records (workspace_id, key, state, lease_expires_on, expires_on)
       VALUES ($1, $2, 'in-flight', now() - interval '1 second', now() + interval '23 hours')`,
      [workspaceId, key],
    );
    const response = await upload(t, apiKey, wav, {}, { 'Idempotency-Key': key });
    expect(response.status).toBe(202);
    const again = await upload(t, apiKey, wav, {}, { 'Idempotency-Key': key });
    expect(again.text).toBe(response.text);
  });

  it('a claim whose holder is alive (lease running) answers 409 with Retry-After', async () => {
    const key = randomUUID();
    await db.query(
      `INSERT INTO idempotency_records (workspace_id, key, state, lease_expires_on, expires_on)
       VALUES ($1, $2, 'in-flight', now() + interval '30 seconds', now() + interval '24 hours')`,
      [workspaceId, key],
    );
    const response = await upload(t, apiKey, wav, {}, { 'Idempotency-Key': key });
    expect(response.status).toBe(409);
    expect(response.body.type).toBe(problem('idempotency-key-in-flight'));
    expect(response.headers['retry-after']).toBe('1');
  });

  it('sweeps records older than 24 hours and keeps the others', async () => {
    const expired = randomUUID();
    const fresh = randomUUID();
    await db.query(
      `INSERT INTO idempotency_records (workspace_id, key, fingerprint, state, response_status, response_body,
         response_content_type, expires_on)
       VALUES ($1, $2, $4, 'completed', 202, '{}', 'application/json; charset=utf-8', now() - interval '1 minute'),
              ($1, $3, $4, 'completed', 202, '{}', 'application/json; charset=utf-8', now() + interval '1 hour')`,
      [workspaceId, expired, fresh, 'f'.repeat(64)],
    );
    expect(await t.app.get(IdempotencyService).sweepExpired()).toBeGreaterThanOrEqual(1);
    const keys = (
      await db.query<Array<{ key: string }>>(
        'SELECT key FROM idempotency_records WHERE key = ANY($1::uuid[])',
        [[expired, fresh]],
      )
    ).map((row) => row.key);
    expect(keys).toEqual([fresh]);
  });

  it('does not replay a refusal: after a 402 the same key succeeds once the balance is topped up', async () => {
    const broke = await t.createWorkspace({ name: 'Broke idem', balanceEur: 0, freeTranscriptions: 0 });
    const key = randomUUID();
    const refused = await upload(t, broke.apiKey, wav, {}, { 'Idempotency-Key': key });
    expect(refused.status).toBe(402);
    await t.app
      .get(LedgerService)
      .post({ workspaceId: broke.workspaceId, kind: 'top-up', amountMicro: 1_000_000 });
    const accepted = await upload(t, broke.apiKey, wav, {}, { 'Idempotency-Key': key });
    expect(accepted.status).toBe(202);
  });

  it('does not replay a 422: the corrected request with the same key is accepted, not a mismatch', async () => {
    const key = randomUUID();
    const invalid = await upload(t, apiKey, wav, { language: 'xx' }, { 'Idempotency-Key': key });
    expect(invalid.status).toBe(422);
    expect(invalid.body.type).toBe(problem('validation'));
    const corrected = await upload(t, apiKey, wav, { language: 'en' }, { 'Idempotency-Key': key });
    expect(corrected.status).toBe(202);
    const other = await t.http().get(`/v1/transcriptions/${corrected.body.data.id}`).set(bearer(apiKey));
    expectMatchesSpec(other, 'getTranscription');
    expect(other.body.data.language).toBe('en');
  });

  it('replays the 202 of a job that took the last free transcription, instead of refusing the retry with 402', async () => {
    // The retry of a lost answer must get that answer, even though the workspace could not start a new job now.
    const last = await t.createWorkspace({ name: 'Last free one', balanceEur: 0, freeTranscriptions: 1 });
    const key = randomUUID();
    const fields = { model: 'standard', language: 'en' };
    const first = await upload(t, last.apiKey, wav, fields, { 'Idempotency-Key': key });
    expect(first.status).toBe(202);
    const retry = await upload(t, last.apiKey, wav, fields, { 'Idempotency-Key': key });
    expectMatchesSpec(retry, 'createTranscription');
    expect(retry.status).toBe(202);
    expect(retry.text).toBe(first.text);
    expect(await jobsOf(last.workspaceId)).toBe(1);
    // A new request (another key) is refused: the gate still applies to anything that is not a replay.
    const fresh = await upload(t, last.apiKey, wav, fields, { 'Idempotency-Key': randomUUID() });
    expect(fresh.status).toBe(402);
  });
});
