/** The bytes to send, both ends inclusive (RFC 9110 §14.1.2). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The longest `Range` value read. One plain byte range of two 16-digit offsets with generous whitespace fits
 * easily; a longer value is ignored unread (a 15,000-character value used to hold the event loop).
 */
export const MAX_RANGE_HEADER_LENGTH = 200;

/**
 * Reads a `Range` header for a representation of `size` bytes: `whole` when there is none or it is not one
 * plain byte range (several ranges, other units, a malformed value, a value over MAX_RANGE_HEADER_LENGTH
 * characters: RFC 9110 lets a server ignore Range and send everything, which every player handles),
 * `unsatisfiable` when it starts at or after the end.
 */
export function parseByteRange(
  header: string | undefined,
  size: number,
): { kind: 'whole' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' } {
  const spec = header === undefined || header.length > MAX_RANGE_HEADER_LENGTH ? null : readByteRange(header);
  if (!spec || (spec.first === '' && spec.last === '')) return { kind: 'whole' };
  if (spec.first === '') {
    // Suffix range: the last N bytes.
    const length = Number(spec.last);
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - length), end: size - 1 } };
  }
  const start = Number(spec.first);
  const end = spec.last === '' ? size - 1 : Math.min(Number(spec.last), size - 1);
  if (spec.last !== '' && Number(spec.last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end } };
}

const SPACE = 0x20;
const TAB = 0x09;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * `bytes = <digits> - <digits>` (either digit run may be empty, OWS anywhere between the tokens, unit name in
 * any case) in one left-to-right pass that reads each character once: no pattern that can backtrack.
 */
function readByteRange(header: string): { first: string; last: string } | null {
  let index = 0;
  const skipWhitespace = () => {
    while (
      index < header.length &&
      (header.charCodeAt(index) === SPACE || header.charCodeAt(index) === TAB)
    ) {
      index++;
    }
  };
  const digits = () => {
    const from = index;
    while (
      index < header.length &&
      header.charCodeAt(index) >= DIGIT_0 &&
      header.charCodeAt(index) <= DIGIT_9
    ) {
      index++;
    }
    return header.slice(from, index);
  };
  const expect = (literal: string) => {
    if (header.slice(index, index + literal.length).toLowerCase() !== literal) return false;
    index += literal.length;
    return true;
  };
  skipWhitespace();
  if (!expect('bytes')) return null;
  skipWhitespace();
  if (!expect('=')) return null;
  skipWhitespace();
  const first = digits();
  skipWhitespace();
  if (!expect('-')) return null;
  skipWhitespace();
  const last = digits();
  skipWhitespace();
  return index === header.length ? { first, last } : null;
}
