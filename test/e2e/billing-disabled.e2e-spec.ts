import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { OutboxEvent } from '../../src/webhooks/outbox-event.entity';
import { expectMatchesSpec } from '../support/openapi-contract';
import { TEST_AUDIO_DIR } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { upload, waitForTerminal } from '../support/transcriptions';

const GO_FORWARD = join(TEST_AUDIO_DIR, 'pocketsphinx/goforward.wav'); // 2.786 s, 0.00015 EUR when billed

/**
 * Self-hosting: with BILLING_ENABLED=false nothing is refused for money, nothing is charged
 * and no balance.low fires, while usage still counts the minutes. The default (billing on) is guarded in
 * billing.e2e-spec.ts.
 */
describe('Billing disabled (BILLING_ENABLED=false)', () => {
  let t: TestApp;
  let dataSource: DataSource;
  beforeAll(async () => {
    t = await startTestApp({ BILLING_ENABLED: 'false' });
    dataSource = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const ledgerCount = async (workspaceId: string): Promise<number> => {
    const [row] = await dataSource.query<Array<{ count: number }>>(
      'SELECT COUNT(*)::int AS count FROM balance_ledger WHERE workspace_id = $1',
      [workspaceId],
    );
    return row.count;
  };

  async function account(apiKey: string) {
    const balance = await t.http().get('/v1/account/balance').set(bearer(apiKey));
    expectMatchesSpec(balance, 'getBalance');
    const usage = await t.http().get('/v1/account/usage?months=1').set(bearer(apiKey));
    expectMatchesSpec(usage, 'getUsage');
    return {
      balance: balance.body.data as { balance: number; freeTranscriptionsRemaining: number },
      usage: usage.body.data as {
        months: Array<{ standardMinutes: number; standardCost: number; count: number }>;
      },
    };
  }

  it('GET /v1/tiers shows every tier at 0 EUR a minute (nothing is charged)', async () => {
    const { apiKey } = await t.createWorkspace({ name: 'Self-hosted, tiers' });
    const tiers = await t.http().get('/v1/tiers').set(bearer(apiKey));
    expectMatchesSpec(tiers, 'listTiers');
    expect((tiers.body.data as Array<{ pricePerMinute: number }>).map((tier) => tier.pricePerMinute)).toEqual(
      [0, 0, 0],
    );
  });

  it('transcribes for a workspace with no balance and no free transcription: cost 0, nothing charged, usage counted', async () => {
    // Billing on, this workspace is refused 402 before its body is read; with a balance exactly at the
    // low-balance threshold, any charge would also fire balance.low.
    const broke = await t.createWorkspace({
      name: 'Self-hosted, empty',
      balanceEur: 0,
      freeTranscriptions: 0,
    });
    const atThreshold = await t.createWorkspace({
      name: 'Self-hosted, at threshold',
      balanceEur: 1,
      freeTranscriptions: 2,
      lowBalanceThresholdEur: 1,
    });
    const ledgerBefore = [await ledgerCount(broke.workspaceId), await ledgerCount(atThreshold.workspaceId)];

    for (const workspace of [broke, atThreshold]) {
      const before = await account(workspace.apiKey);
      const created = await upload(t, workspace.apiKey, GO_FORWARD, { model: 'standard' });
      expect(created.status).toBe(202);
      expect(created.body.data.estimatedCost).toBe(0);
      const done = await waitForTerminal(t, workspace.apiKey, created.body.data.id as string);
      expect(done.status).toBe('completed');
      expect(done.body.data).toMatchObject({ cost: 0, estimatedCost: 0 });

      const after = await account(workspace.apiKey);
      // The balance is untouched and free transcriptions are not consumed.
      expect(after.balance).toEqual(before.balance);
      expect(after.usage.months[0]).toMatchObject({ count: 1, standardCost: 0 });
      expect(after.usage.months[0].standardMinutes).toBeCloseTo(2.786 / 60, 3);
    }
    expect([await ledgerCount(broke.workspaceId), await ledgerCount(atThreshold.workspaceId)]).toEqual(
      ledgerBefore,
    );
    const balanceLow = await dataSource.getRepository(OutboxEvent).count({
      where: [
        { workspaceId: broke.workspaceId, type: 'balance.low' },
        { workspaceId: atThreshold.workspaceId, type: 'balance.low' },
      ],
    });
    expect(balanceLow).toBe(0);
  }, 120_000);
});
