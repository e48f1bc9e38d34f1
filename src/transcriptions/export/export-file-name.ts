import type { ExportFormat } from './export.types';

const MAX_BASE_LENGTH = 120;

/** The upload's name without folders (either slash) and without its last extension. */
function baseName(originalFileName: string): string {
  const lastSegment = originalFileName.split(/[\\/]/u).at(-1) ?? '';
  const dot = lastSegment.lastIndexOf('.');
  return dot > 0 ? lastSegment.slice(0, dot) : lastSegment;
}

/**
 * Keeps letters, marks and digits of any script plus a few harmless ASCII marks; everything else (quotes,
 * slashes, control characters, emoji, ...) becomes "_". Leading dots are dropped so no hidden files result.
 */
function sanitize(name: string): string {
  const cleaned = name
    .normalize('NFC')
    .replace(/[^\p{L}\p{M}\p{N} _\-.,()+]/gu, '_')
    .replace(/_+/gu, '_')
    .replace(/\s+/gu, ' ')
    .replace(/^[\s._]+|[\s._]+$/gu, '');
  return Array.from(cleaned).slice(0, MAX_BASE_LENGTH).join('').trim();
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

/** Printable ASCII without `"` and `\`, which would need quoting in the header. */
function asciiFallback(fileName: string): string {
  const ascii = fileName
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]|["\\]/gu, '_');
  return ascii.replace(/^_+(?=\.)/u, 'download');
}

/** RFC 5987 ext-value: encodeURIComponent leaves ' ( ) * unescaped, but they are not attr-chars. */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/gu,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266): old clients read
 * the fallback, current browsers take the exact UTF-8 name from filename*.
 */
export function buildContentDisposition(fileName: string): string {
  return `attachment; filename="${asciiFallback(fileName)}"; filename*=UTF-8''${encodeExtValue(fileName)}`;
}
