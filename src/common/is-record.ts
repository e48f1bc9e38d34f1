/** A plain JSON object (not null, not an array): the guard for parsing untrusted JSON. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
