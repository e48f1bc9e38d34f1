import type { Tier } from '../api/types';
import { formatEur } from './money';

/** The languages of GET /v1/languages: a tier serving as many serves them all. */
const ALL_LANGUAGES = 99;

/** "English only", "all 99 languages", "de only", "12 languages". */
export function languagesLabel(languages: readonly string[]): string {
  if (languages.length >= ALL_LANGUAGES) return `all ${ALL_LANGUAGES} languages`;
  if (languages.length === 1) return languages[0] === 'en' ? 'English only' : `${languages[0]} only`;
  return `${languages.length} languages`;
}

/** The picker's option: "premium — PocketSphinx en-us", "(unavailable)" when its files are missing now. */
export function tierOptionLabel(tier: Tier): string {
  const label = `${tier.tier} — ${tier.engineName} ${tier.model}`;
  return tier.available ? label : `${label} (unavailable)`;
}

/** The line under the picker for the chosen tier: engine, model, languages, live, price. */
export function tierDescription(tier: Tier): string {
  const byLanguage = Object.entries(tier.modelsByLanguage)
    .map(([language, model]) => `, ${model} for ${language}`)
    .join('');
  const parts = [
    `Runs ${tier.engineName} (model ${tier.model}${byLanguage})`,
    languagesLabel(tier.languages),
    tier.streaming ? 'also live' : 'files only, not live',
    tier.pricePerMinute > 0 ? `${formatEur(tier.pricePerMinute)} per audio minute` : 'not billed',
  ];
  const line = `${parts.join(' · ')}.`;
  return tier.available ? line : `${line} Unavailable on this server now: its model files are missing.`;
}

/**
 * "premium and premium_jade run the same PocketSphinx en-us as standard: the same text." for the chosen tier
 * when another tier runs the very same engine and model; null otherwise.
 */
export function sameEngineNote(chosen: Tier, tiers: readonly Tier[]): string | null {
  const same = (tier: Tier) =>
    tier.engine === chosen.engine &&
    tier.model === chosen.model &&
    JSON.stringify(tier.modelsByLanguage) === JSON.stringify(chosen.modelsByLanguage);
  const others = tiers.filter((tier) => tier.tier !== chosen.tier && same(tier)).map((tier) => tier.tier);
  if (others.length === 0) return null;
  return `${others.join(' and ')} ${others.length > 1 ? 'run' : 'runs'} the same ${chosen.engineName} ${chosen.model}: the same text as ${chosen.tier}, at ${others.length > 1 ? 'their' : 'its'} own price.`;
}
