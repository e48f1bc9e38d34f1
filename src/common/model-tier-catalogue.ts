/**
 * What differs between the model tiers outside the engine, in one typed table: the queue reads the priority,
 * billing the price variable, and the account usage report the bucket. A new tier is one entry here (plus its
 * config variables and the database check constraint); the compiler points at every other gap, including the
 * engine's per-tier tables (src/engine/engine.config.ts and the descriptors that have per-tier defaults).
 *
 * A plain module without Nest or config imports, so any layer can read it without import cycles.
 */
export const MODEL_TIERS = ['standard', 'premium', 'premium_jade'] as const;
export type ModelTier = (typeof MODEL_TIERS)[number];

/** The two columns of GET /v1/account/usage (`standardMinutes`/`standardCost`, `premiumMinutes`/`premiumCost`). */
export type UsageBucket = 'standard' | 'premium';

type VariableSuffix = 'STANDARD' | 'PREMIUM' | 'PREMIUM_JADE';

export interface ModelTierEntry {
  /** Bull priority: lower runs first, so premium tiers jump the standard queue. */
  queuePriority: number;
  /** The config variable holding the tier's price in EUR per audio minute. */
  priceVariable: `PRICE_${VariableSuffix}_EUR_PER_MINUTE`;
  /** The column of the usage report the tier's minutes and cost are added to. */
  usageBucket: UsageBucket;
}

export const MODEL_TIER_CATALOGUE: Readonly<Record<ModelTier, Readonly<ModelTierEntry>>> = {
  standard: {
    queuePriority: 5,
    priceVariable: 'PRICE_STANDARD_EUR_PER_MINUTE',
    usageBucket: 'standard',
  },
  premium: {
    queuePriority: 2,
    priceVariable: 'PRICE_PREMIUM_EUR_PER_MINUTE',
    usageBucket: 'premium',
  },
  premium_jade: {
    queuePriority: 1,
    priceVariable: 'PRICE_PREMIUM_JADE_EUR_PER_MINUTE',
    usageBucket: 'premium',
  },
};

/** The tiers, most urgent first (the order a workspace's waiting jobs are handed to the workers). */
export const MODEL_TIERS_BY_QUEUE_PRIORITY: readonly ModelTier[] = [...MODEL_TIERS].sort(
  (a, b) => MODEL_TIER_CATALOGUE[a].queuePriority - MODEL_TIER_CATALOGUE[b].queuePriority,
);

/** The tiers whose usage is reported in `bucket`. */
export function tiersInUsageBucket(bucket: UsageBucket): ModelTier[] {
  return MODEL_TIERS.filter((tier) => MODEL_TIER_CATALOGUE[tier].usageBucket === bucket);
}
