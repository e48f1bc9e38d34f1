import type { BillingConfig } from './billing.config';
import { MODEL_TIER_CATALOGUE, type ModelTier } from '../common/model-tier-catalogue';
import { eurToMicro } from '../common/money';

/** Price per audio minute of each tier (the variable the tier catalogue names), in micro-EUR. */
export function pricePerMinuteMicro(config: BillingConfig, tier: ModelTier): number {
  return eurToMicro(config[MODEL_TIER_CATALOGUE[tier].priceVariable]);
}

/**
 * Prorated by the started second of decoded audio: ceil(seconds) × price per minute / 60, rounded half up
 * to a whole micro-EUR (exact for the default prices: 50, 75 and 100 micro-EUR per second).
 */
export function costMicro(durationSeconds: number, pricePerMinute: number): number {
  const billedSeconds = Math.max(0, Math.ceil(durationSeconds - 1e-9));
  return Math.round((billedSeconds * pricePerMinute) / 60);
}

/**
 * A job's cost: a multichannel job is billed per channel-minute (each channel is recognised on its own, so
 * it costs the engine as much as a file of its own); `channels` null is a job mixed to mono, billed once.
 */
export function jobCostMicro(
  durationSeconds: number,
  pricePerMinute: number,
  channels: number | null,
): number {
  return costMicro(durationSeconds, pricePerMinute) * (channels ?? 1);
}
