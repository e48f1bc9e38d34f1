/** Times in results are kept to the millisecond. */
export function roundSeconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
