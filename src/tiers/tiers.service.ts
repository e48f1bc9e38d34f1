import { Injectable } from '@nestjs/common';
import { BillingConfig } from '../billing/billing.config';
import { pricePerMinuteMicro } from '../billing/pricing';
import { MODEL_TIERS, type ModelTier } from '../common/model-tier-catalogue';
import { microToEur } from '../common/money';
import { EngineTiers } from '../engine/tiers/engine-tiers';
import type { Schema } from '../openapi/contract-types';

/** A recogniser's files change only on deployment: checked at most this often per tier (the readiness probe's). */
const AVAILABILITY_CACHE_MS = 5_000;
/** A check that takes longer counts as unavailable (the readiness probe's timeout). */
const AVAILABILITY_TIMEOUT_MS = 2_000;

/**
 * GET /v1/tiers: which engine and model serve each tier on this deployment (EngineTiers' boot-time resolution,
 * the same one the worker builds its engines from), whether its files are in place now, and its price.
 */
@Injectable()
export class TiersService {
  private readonly availability = new Map<ModelTier, { checkedAt: number; available: Promise<boolean> }>();

  constructor(
    private readonly tiers: EngineTiers,
    private readonly billing: BillingConfig,
  ) {}

  async list(): Promise<Array<Schema<'Tier'>>> {
    return Promise.all(
      MODEL_TIERS.map(async (tier) => ({
        ...this.tiers.summary(tier),
        available: await this.available(tier),
        // Billing switched off charges nothing (costs and estimates are 0), so the price shown is 0 too.
        pricePerMinute: this.billing.BILLING_ENABLED
          ? microToEur(pricePerMinuteMicro(this.billing, tier))
          : 0,
      })),
    );
  }

  /**
   * The readiness probe's recogniser check, shared by every caller for AVAILABILITY_CACHE_MS: however often
   * tenants ask, each tier's files are looked at no more than once per interval.
   */
  private available(tier: ModelTier): Promise<boolean> {
    const cached = this.availability.get(tier);
    const now = Date.now();
    if (cached && now - cached.checkedAt < AVAILABILITY_CACHE_MS) return cached.available;
    const available = withTimeout(this.tiers.checkRecognizer(tier), AVAILABILITY_TIMEOUT_MS).then(
      () => true,
      () => false,
    );
    this.availability.set(tier, { checkedAt: now, available });
    return available;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
