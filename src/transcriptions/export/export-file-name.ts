import type { ExportFormat } from './export.types';

const MAX_BASE_LENGTH = 120;

/**
 * What a download name must not carry even percent-encoded: control characters (C0, DEL, C1), line and
 * paragraph separators, bidirectional overrides and isolates (they make "invoice<U+202E>fdp.exe" display as
 * "invoiceexe.pdf") and lone surrogates (not encodable as UTF-8). Everything else is kept: the name is the
 * user's, and `filename*` can carry any of it.
 */
const UNSAFE_RUN = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/gu;

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/** The upload's name without folders (either slash) and without its last extension. */
function baseName(originalFileName: string): string {
  const lastSegment = originalFileName.split(/[\\/]/u).at(-1) ?? '';
  const dot = lastSegment.lastIndexOf('.');
  return dot > 0 ? lastSegment.slice(0, dot) : lastSegment;
}

/** NFC, unsafe runs as one "_", no leading dots (no hidden files) nor edge blanks, at most 120 graphemes. */
function sanitize(name: string): string {
  const cleaned = name
    .normalize('NFC')
    .replace(UNSAFE_RUN, '_')
    .replace(/^[\s.]+|[\s.]+$/gu, '');
  if (/^_*$/u.test(cleaned)) return '';
  const kept = Array.from(graphemes.segment(cleaned), ({ segment }) => segment).slice(0, MAX_BASE_LENGTH);
  return kept.join('').trimEnd();
}

/** `<original base name>.<format>`, or `<transcription id>.<format>` when nothing usable is left. */
export function exportFileName(
  originalFileName: string,
  transcriptionId: string,
  format: ExportFormat,
): string {
  const base = sanitize(baseName(originalFileName));
  return `${base === '' ? transcriptionId : base}.${format}`;
}

/** Typographic marks with a plain ASCII look-alike; `'` stands in for double quotes too. */
const ASCII_LOOK_ALIKES: Readonly<Record<string, string>> = {
  '‘': "'",
  '’': "'",
  '‚': "'",
  '‛': "'",
  '“': "'",
  '”': "'",
  '„': "'",
  '‟': "'",
  '«': "'",
  '»': "'",
  '"': "'",
  '‐': '-',
  '‑': '-',
  '‒': '-',
  '–': '-',
  '—': '-',
  '−': '-',
};

/** Printable ASCII without `"` and `\`, which would need quoting in the header: the old-client stand-in. */
function asciiFallback(fileName: string): string {
  const ascii = fileName
    .replace(/[‘’‚‛“”„‟«»"‐‑‒–—−]/gu, (mark) => ASCII_LOOK_ALIKES[mark] ?? '_')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]|\\/gu, '_');
  return ascii.replace(/^_+(?=\.)/u, 'download');
}

/**
 * RFC 8187 ext-value: every byte outside attr-char percent-encoded. encodeURIComponent already does so for
 * all but ' ( ) * and ! (unreserved there; ! is an attr-char, the others are not).
 */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/gu,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266, RFC 8187): old
 * clients read the fallback, current browsers and `curl -J` take the exact UTF-8 name from filename*.
 */
export function buildContentDisposition(fileName: string): string {
  return `attachment; filename="${asciiFallback(fileName)}"; filename*=UTF-8''${encodeExtValue(fileName)}`;
}
