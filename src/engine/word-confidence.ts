/** A recogniser's word probability as stored in resultJson: clamped to 0..1, three decimals. */
export function roundConfidence(probability: number): number {
  if (!Number.isFinite(probability)) return 0;
  return Math.round(Math.min(1, Math.max(0, probability)) * 1000) / 1000;
}
