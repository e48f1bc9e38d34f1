/**
 * Money as the service charges it: whole micro-EUR (6 decimals). Shown with at least 2 decimals and as many
 * more as the amount has, so a charge of 0.00055 EUR never reads as 0.00.
 */
export const CHARGE_DECIMALS = 6;

export function formatEur(amount: number): string {
  return `${formatAmount(amount)} EUR`;
}

/** The number alone (table cells whose header names the currency). */
export function formatAmount(amount: number): string {
  const fixed = amount.toFixed(CHARGE_DECIMALS);
  const [whole, fraction] = fixed.split('.');
  const significant = fraction.replace(/0+$/, '');
  const shown = significant.length >= 2 ? significant : significant.padEnd(2, '0');
  const sign = whole.startsWith('-') && Number(fixed) === 0 ? whole.slice(1) : whole;
  return `${sign}.${shown}`;
}
