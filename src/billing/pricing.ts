import type { ModelTier } from '../engine/engine.types';
import type { AppConfig } from '../config/app-config';
import { eurToMicro } from '../common/money';

/** Price per audio minute of each tier, in micro-EUR. */
export function pricePerMinuteMicro(config: AppConfig, tier: ModelTier): number {
  switch (tier) {
    case 'standard':
      return eurToMicro(config.PRICE_STANDARD_EUR_PER_MINUTE);
    case 'premium':
      return eurToMicro(config.PRICE_PREMIUM_EUR_PER_MINUTE);
    case 'premium_jade':
      return eurToMicro(config.PRICE_PREMIUM_JADE_EUR_PER_MINUTE);
  }
}

/**
 * Prorated by the started second of decoded audio: ceil(seconds) × price per minute / 60, rounded half up
 * to a whole micro-EUR (exact for the default prices: 50, 75 and 100 micro-EUR per second).
 */
export function costMicro(durationSeconds: number, pricePerMinute: number): number {
  const billedSeconds = Math.max(0, Math.ceil(durationSeconds - 1e-9));
  return Math.round((billedSeconds * pricePerMinute) / 60);
}
