/** The bytes to send, both ends inclusive (RFC 9110 §14.1.2). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Reads a `Range` header for a representation of `size` bytes: `whole` when there is none or it is not one
 * plain byte range (several ranges, other units, a malformed value: RFC 9110 lets a server ignore Range and
 * send everything, which every player handles), `unsatisfiable` when it starts at or after the end.
 */
export function parseByteRange(
  header: string | undefined,
  size: number,
): { kind: 'whole' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' } {
  const match = header === undefined ? null : /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'whole' };
  if (match[1] === '') {
    // Suffix range: the last N bytes.
    const length = Number(match[2]);
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - length), end: size - 1 } };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (match[2] !== '' && Number(match[2]) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end } };
}
