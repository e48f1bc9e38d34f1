/** Money is integer micro-EUR inside the service and EUR numbers on the wire. */
export const MICRO_PER_EUR = 1_000_000;

export function eurToMicro(eur: number): number {
  return Math.round(eur * MICRO_PER_EUR);
}

export function microToEur(micro: number): number {
  return micro / MICRO_PER_EUR;
}
