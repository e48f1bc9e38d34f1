import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { LedgerService } from '../../src/billing/ledger.service';
import { TranscriptionAttemptRunner } from '../../src/transcriptions/transcription-attempt-runner.service';
import { TranscriptionDispatcher } from '../../src/transcriptions/transcription-dispatcher.service';
import { OutboxEvent } from '../../src/webhooks/outbox-event.entity';
import { expectMatchesSpec } from '../support/openapi-contract';
import { whenJobEnds } from '../support/settled-work';
import { TEST_AUDIO_DIR } from '../support/shared-paths';
import { upload as uploadTranscription } from '../support/transcriptions';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { baseTestEnvironment } from '../support/test-environment';
import { BillingConfig } from '../../src/billing/billing.config';

const AUDIO = TEST_AUDIO_DIR;
const GO_FORWARD = join(AUDIO, 'pocketsphinx/goforward.wav'); // 2.786 s → 3 billed seconds
const JFK = join(AUDIO, 'whisper.cpp/jfk.wav'); // 11.0 s → 11 billed seconds
const SILENCE = join(AUDIO, 'kaldi-gstreamer-server/silence.wav'); // fails NO_SPOKEN_AUDIO

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const run = promisify(execFile);

async function cli(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run('node', [CLI, ...args], { env: { ...process.env, ...baseTestEnvironment() } });
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]) as Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface LedgerRow {
  kind: string;
  amount_micro: string;
  transcription_id: string | null;
}

/**
 * Billing against the real engine, PostgreSQL and Redis. The minimum balance is lowered to 0.0001 EUR so
 * that a job the balance cannot cover can be started at all (INSUFFICIENT_BALANCE at completion).
 */
describe('Billing', () => {
  let t: TestApp;
  let dataSource: DataSource;
  beforeAll(async () => {
    t = await startTestApp({ MINIMUM_BALANCE_EUR: '0.0001', WORKER_CONCURRENCY: '2' });
    dataSource = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  /** A 402 comes before the body: the shared helper reads it whatever the file's size. */
  function upload(apiKey: string, file: string, model = 'standard') {
    return uploadTranscription(t, apiKey, file, { model });
  }

  /** Bounded poll of the status endpoint; returns the validated detail. */
  async function finished(apiKey: string, id: string, deadlineMs = 90_000) {
    const deadline = Date.now() + deadlineMs;
    while (Date.now() < deadline) {
      const status = await t.http().get(`/v1/transcriptions/${id}/status`).set(bearer(apiKey));
      expectMatchesSpec(status, 'getTranscriptionStatus');
      if (status.body.data.status === 'completed' || status.body.data.status === 'failed') {
        const detail = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(apiKey));
        expectMatchesSpec(detail, 'getTranscription');
        return detail.body.data as Record<string, unknown>;
      }
      await sleep(250);
    }
    throw new Error(`transcription ${id} did not finish within ${deadlineMs} ms`);
  }

  async function balanceOf(apiKey: string) {
    const response = await t.http().get('/v1/account/balance').set(bearer(apiKey));
    expect(response.status).toBe(200);
    expectMatchesSpec(response, 'getBalance');
    return response.body.data as Record<string, unknown>;
  }

  const ledgerOf = (workspaceId: string): Promise<LedgerRow[]> =>
    dataSource.query(
      'SELECT kind, amount_micro, transcription_id FROM balance_ledger WHERE workspace_id = $1 ORDER BY created_on',
      [workspaceId],
    );

  const balanceLowEvents = (workspaceId: string) =>
    dataSource.getRepository(OutboxEvent).find({
      where: { workspaceId, type: 'balance.low' },
      order: { createdOn: 'ASC' },
    });

  describe('mixed jobs', () => {
    let apiKey: string;
    let workspaceId: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      ({ apiKey, workspaceId } = await t.createWorkspace({
        name: 'Billing mixed',
        balanceEur: 1,
        freeTranscriptions: 0,
        lowBalanceThresholdEur: 0.5,
      }));
      for (const [name, file, model] of [
        ['standard', GO_FORWARD, 'standard'],
        ['premium', GO_FORWARD, 'premium'],
        ['jfk', JFK, 'standard'],
        ['silence', SILENCE, 'standard'],
      ] as const) {
        const created = await upload(apiKey, file, model);
        expect(created.status).toBe(202);
        ids[name] = created.body.data.id as string;
      }
      for (const id of Object.values(ids)) await finished(apiKey, id);
    }, 180_000);

    it('charges exactly ceil(seconds) × price per second and nothing for the failed job', async () => {
      const standard = await finished(apiKey, ids.standard);
      const premium = await finished(apiKey, ids.premium);
      const jfk = await finished(apiKey, ids.jfk);
      const silence = await finished(apiKey, ids.silence);
      expect(standard).toMatchObject({ status: 'completed', cost: 0.00015 }); // 3 s × 50 micro-EUR
      expect(premium).toMatchObject({ status: 'completed', cost: 0.000225 }); // 3 s × 75 micro-EUR
      expect(jfk).toMatchObject({ status: 'completed', cost: 0.00055 }); // 11 s × 50 micro-EUR
      expect(silence.status).toBe('failed');
      expect(silence.errorMessage).toMatch(/^NO_SPOKEN_AUDIO/);
      expect(silence.cost ?? null).toBeNull();

      // 1 EUR − 150 − 225 − 550 micro-EUR, exactly.
      expect((await balanceOf(apiKey)).balance).toBe(0.999075);
      const ledger = (await ledgerOf(workspaceId)).map(
        (row) => `${row.kind} ${row.amount_micro} ${row.transcription_id ?? '-'}`,
      );
      expect(ledger.sort()).toEqual(
        [
          'top-up 1000000 -',
          `charge -150 ${ids.standard}`,
          `charge -225 ${ids.premium}`,
          `charge -550 ${ids.jfk}`,
        ].sort(),
      );
    });

    it('usage totals equal the ledger charges, split by tier', async () => {
      const response = await t.http().get('/v1/account/usage?months=1').set(bearer(apiKey));
      expect(response.status).toBe(200);
      expectMatchesSpec(response, 'getUsage');
      const usage = response.body.data as {
        months: Array<Record<string, number | string>>;
        summary: { totalTranscriptions: number; totalMinutes: number; totalCost: number };
      };
      const [{ total_micro: chargedMicro }]: Array<{ total_micro: string }> = await dataSource.query(
        `SELECT -SUM(amount_micro) AS total_micro FROM balance_ledger WHERE workspace_id = $1 AND kind = 'charge'`,
        [workspaceId],
      );
      expect(Number(chargedMicro)).toBe(925);
      expect(usage.summary.totalCost).toBe(Number(chargedMicro) / 1_000_000);
      expect(usage.summary.totalTranscriptions).toBe(3);
      expect(usage.months).toHaveLength(1);
      const [month] = usage.months;
      expect(month.count).toBe(3);
      expect(month.standardCost).toBe(0.0007);
      expect(month.premiumCost).toBe(0.000225);
      expect((month.standardCost as number) + (month.premiumCost as number)).toBeCloseTo(
        usage.summary.totalCost,
        9,
      );
    });

    it('never charges twice when the same completion is processed again', async () => {
      const before = { balance: (await balanceOf(apiKey)).balance, ledger: await ledgerOf(workspaceId) };
      // The job delivered a second time, in this process and through the queue.
      const jobs = t.app.get(TranscriptionAttemptRunner);
      expect(await jobs.run(ids.jfk, { number: 2, isLast: true })).toBe('done');
      // Checked once the re-queued job has been processed to its end, not after a guessed while.
      const queue = t.app.get(TranscriptionDispatcher);
      const ended = whenJobEnds(queue.queue, ids.jfk);
      await queue.enqueue({ id: ids.jfk, workspaceId, model: 'standard' });
      expect(await ended).toBe('completed');
      expect((await balanceOf(apiKey)).balance).toBe(before.balance);
      expect(await ledgerOf(workspaceId)).toEqual(before.ledger);
      const detail = await finished(apiKey, ids.jfk);
      expect(detail).toMatchObject({ status: 'completed', cost: 0.00055 });

      // And the database refuses a second charge for the transcription outright (partial unique index).
      await expect(
        t.app
          .get(LedgerService)
          .post({ workspaceId, kind: 'charge', amountMicro: -550, transcriptionId: ids.jfk }),
      ).rejects.toThrow(/uq_balance_ledger_charge_per_transcription|duplicate key/);
      expect((await balanceOf(apiKey)).balance).toBe(before.balance);
    });
  });

  it('bills by default: without BILLING_ENABLED an empty workspace is refused 402', async () => {
    // Guards every test here (and billing-disabled.e2e-spec.ts) against a flipped default.
    expect(t.config.get(BillingConfig).BILLING_ENABLED).toBe(true);
    const { apiKey } = await t.createWorkspace({
      name: 'Billing default',
      balanceEur: 0,
      freeTranscriptions: 0,
    });
    const refused = await upload(apiKey, GO_FORWARD);
    expect(refused.status).toBe(402);
  });

  it('refuses at upload a file whose estimated cost the balance cannot cover (no job, nothing reserved)', async () => {
    const { apiKey, workspaceId } = await t.createWorkspace({
      name: 'Billing short',
      balanceEur: 0.0002,
      freeTranscriptions: 0,
    });
    const refused = await upload(apiKey, JFK); // 550 micro-EUR against 200
    expect(refused.status).toBe(402);
    expect(refused.body.detail).toContain('this file costs about 0.00055 EUR');
    expect((await balanceOf(apiKey)).balance).toBe(0.0002);
    expect(await ledgerOf(workspaceId)).toHaveLength(1);
  });

  it('fails a job the balance can no longer cover at completion with INSUFFICIENT_BALANCE instead of going negative', async () => {
    const { apiKey, workspaceId } = await t.createWorkspace({
      name: 'Billing spent meanwhile',
      balanceEur: 0.001,
      freeTranscriptions: 0,
    });
    const created = await upload(apiKey, JFK); // 550 micro-EUR against 1000: accepted
    expect(created.status).toBe(202);
    // The balance is spent elsewhere while the job runs (an operator's adjustment): 100 micro-EUR are left.
    await t.app.get(LedgerService).post({ workspaceId, kind: 'adjustment', amountMicro: -900 });
    const detail = await finished(apiKey, created.body.data.id as string);
    expect(detail.status).toBe('failed');
    expect(detail.errorMessage).toMatch(/^INSUFFICIENT_BALANCE/);
    expect((await balanceOf(apiKey)).balance).toBe(0.0001);
    expect((await ledgerOf(workspaceId)).filter((row) => row.kind === 'charge')).toHaveLength(0);
  }, 120_000);

  it('releases the free transcription of a failed job and bills nothing', async () => {
    const { apiKey, workspaceId } = await t.createWorkspace({
      name: 'Billing free failure',
      balanceEur: 0,
      freeTranscriptions: 1,
    });
    const created = await upload(apiKey, SILENCE);
    expect(created.status).toBe(202);
    expect((await balanceOf(apiKey)).freeTranscriptionsRemaining).toBe(0); // reserved at creation
    const detail = await finished(apiKey, created.body.data.id as string);
    expect(detail.status).toBe('failed');
    expect(detail.errorMessage).toMatch(/^NO_SPOKEN_AUDIO/);
    expect(await balanceOf(apiKey)).toMatchObject({ balance: 0, freeTranscriptionsRemaining: 1 });
    expect(await ledgerOf(workspaceId)).toEqual([]);
  }, 120_000);

  it('never uses more free transcriptions than remain under 20 concurrent uploads', async () => {
    const { apiKey, workspaceId } = await t.createWorkspace({
      name: 'Billing concurrency',
      balanceEur: 0,
      freeTranscriptions: 3,
    });
    const responses = await Promise.all(Array.from({ length: 20 }, () => upload(apiKey, GO_FORWARD)));
    const accepted = responses.filter((response) => response.status === 202);
    const refused = responses.filter((response) => response.status === 402);
    expect(accepted).toHaveLength(3);
    expect(refused).toHaveLength(17);
    for (const response of refused) {
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({
        type: 'https://errors.transcription.example/problems/insufficient-balance',
        status: 402,
        balance: 0,
        freeRemaining: 0,
        minimumBalance: 0.0001,
      });
    }
    expect((await balanceOf(apiKey)).freeTranscriptionsRemaining).toBe(0);
    for (const response of accepted) {
      const detail = await finished(apiKey, response.body.data.id as string);
      expect(detail).toMatchObject({ status: 'completed', cost: 0 });
    }
    expect(await balanceOf(apiKey)).toMatchObject({ balance: 0, freeTranscriptionsRemaining: 0 });
    expect(await ledgerOf(workspaceId)).toEqual([]);
  }, 120_000);

  it('fires balance.low once per downward crossing and re-arms after a balance:topup', async () => {
    const { workspaceId } = await t.createWorkspace({
      name: 'Billing low balance',
      balanceEur: 1.2,
      lowBalanceThresholdEur: 1,
    });
    const ledger = t.app.get(LedgerService);
    const debit = (micro: number) =>
      ledger.post({ workspaceId, kind: 'adjustment', amountMicro: -micro, description: 'test debit' });

    await debit(100_000); // 1.20 → 1.10: above
    expect(await balanceLowEvents(workspaceId)).toHaveLength(0);
    await debit(200_000); // 1.10 → 0.90: crossing
    await debit(100_000); // 0.90 → 0.80: still below, disarmed
    let events = await balanceLowEvents(workspaceId);
    expect(events.map((event) => event.data)).toEqual([{ balance: 0.9, threshold: 1, currency: 'EUR' }]);

    expect(await cli('balance:topup', '--workspace', workspaceId, '--amount', '0.25')).toEqual({
      balance: 1.05,
    });
    expect(await balanceLowEvents(workspaceId)).toHaveLength(1);
    await debit(100_000); // 1.05 → 0.95: crossing again
    await debit(50_000); // 0.95 → 0.90: disarmed
    events = await balanceLowEvents(workspaceId);
    expect(events.map((event) => event.data)).toEqual([
      { balance: 0.9, threshold: 1, currency: 'EUR' },
      { balance: 0.95, threshold: 1, currency: 'EUR' },
    ]);
    expect(new Set(events.map((event) => event.dedupeKey)).size).toBe(2);
  });

  it('re-arms balance.low only once the balance is back strictly above the threshold', async () => {
    const { apiKey, workspaceId } = await t.createWorkspace({
      name: 'Billing low balance at the threshold',
      balanceEur: 1.1,
      lowBalanceThresholdEur: 1,
    });
    const ledger = t.app.get(LedgerService);
    const move = (micro: number) =>
      ledger.post({ workspaceId, kind: 'adjustment', amountMicro: micro, description: 'test move' });

    await move(-200_000); // 1.10 → 0.90: crossing, disarmed
    await move(100_000); // 0.90 → 1.00: back to exactly the threshold, not above it
    expect((await balanceOf(apiKey)).balance).toBe(1);
    await move(-100_000); // 1.00 → 0.90: below again, but never re-armed
    expect((await balanceLowEvents(workspaceId)).map((event) => event.data)).toEqual([
      { balance: 0.9, threshold: 1, currency: 'EUR' },
    ]);

    await move(100_000); // 0.90 → 1.00: still not above
    await move(10_000); // 1.00 → 1.01: strictly above, re-armed
    await move(-30_000); // 1.01 → 0.98: a second crossing
    expect((await balanceOf(apiKey)).balance).toBe(0.98);
    expect((await balanceLowEvents(workspaceId)).map((event) => event.data)).toEqual([
      { balance: 0.9, threshold: 1, currency: 'EUR' },
      { balance: 0.98, threshold: 1, currency: 'EUR' },
    ]);
  });

  it('stores auto-reload settings set with workspace:auto-reload and shows them in the balance', async () => {
    const { apiKey, workspaceId } = await t.createWorkspace({ name: 'Billing auto-reload', balanceEur: 3 });
    const enabled = await cli(
      'workspace:auto-reload',
      '--workspace',
      workspaceId,
      '--enabled',
      'true',
      '--threshold',
      '2',
      '--amount',
      '10.5',
    );
    const expected = {
      balance: 3,
      freeTranscriptionsRemaining: 3,
      autoReloadEnabled: true,
      autoReloadThreshold: 2,
      autoReloadAmount: 10.5,
    };
    expect(enabled).toEqual(expected);
    expect(await balanceOf(apiKey)).toEqual(expected);

    const disabled = await cli('workspace:auto-reload', '--workspace', workspaceId, '--enabled', 'false');
    expect(disabled).toEqual({ ...expected, autoReloadEnabled: false });
    expect(await balanceOf(apiKey)).toEqual({ ...expected, autoReloadEnabled: false });

    const fresh = await t.createWorkspace({ name: 'Billing auto-reload bare' });
    await expect(
      cli('workspace:auto-reload', '--workspace', fresh.workspaceId, '--enabled', 'true'),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/threshold and an amount/) });
    await expect(
      cli('workspace:auto-reload', '--workspace', workspaceId, '--enabled', 'maybe'),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/--enabled must be true or false/) });
  });
});
