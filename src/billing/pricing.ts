import type { AppConfig } from '../config/app-config';
import { MODEL_TIER_CATALOGUE, type ModelTier } from '../common/model-tier-catalogue';
import { eurToMicro } from '../common/money';

/** Price per audio minute of each tier (the variable the tier catalogue names), in micro-EUR. */
export function pricePerMinuteMicro(config: AppConfig, tier: ModelTier): number {
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
