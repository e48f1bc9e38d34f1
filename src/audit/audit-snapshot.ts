import { createHash } from 'node:crypto';

/** A JSON object kept in an event's `before`, `after` or `details`. */
export type AuditSnapshot = { [field: string]: AuditValue };
export type AuditValue = string | number | boolean | null | AuditValue[] | AuditSnapshot;

/**
 * Members that never enter the audit log, whatever a caller hands over: secrets and credentials, and any
 * text of a transcript (the log is read by admins who may not read every transcript, and it outlives the
 * transcript's own retention). Compared without case, `_` or `-`.
 */
const WITHHELD_MEMBERS = new Set([
  'secret',
  'previoussecret',
  'signingsecret',
  'clientsecret',
  'token',
  'accesstoken',
  'refreshtoken',
  'devicetoken',
  'password',
  'passwordhash',
  'key',
  'apikey',
  'keyhash',
  'secrethash',
  'tokenhash',
  'authorization',
  'cookie',
  'text',
  'resulttext',
  'resultjson',
  'transcript',
  'words',
  'prompt',
  'vocabulary',
]);

/** Secret-shaped strings, wherever they stand: API keys, webhook signing secrets, JWTs. */
const SECRET_SHAPES = [
  /svc_[a-z]+_[A-Za-z0-9]{16,}/g,
  /whsec_[A-Za-z0-9_-]{16,}/g,
  /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

export const REDACTED = '[redacted]';
/** Longest string kept; a longer one is cut (a name, a file name: nothing of ours is longer). */
export const MAX_STRING_LENGTH = 256;
/** Deepest nesting kept and most members or items kept per level: one event stays small. */
const MAX_DEPTH = 4;
const MAX_MEMBERS = 32;

function normalisedName(member: string): string {
  return member.toLowerCase().replace(/[_-]/g, '');
}

function cleanString(value: string): string {
  let cleaned = value;
  for (const shape of SECRET_SHAPES) cleaned = cleaned.replace(shape, REDACTED);
  return cleaned.length > MAX_STRING_LENGTH ? `${cleaned.slice(0, MAX_STRING_LENGTH)}…` : cleaned;
}

/** `level` is the nesting level of the object or array that holds `value` (the snapshot itself is 1). */
function cleanValue(value: unknown, level: number): AuditValue | undefined {
  if (value === null) return null;
  if (value instanceof Date) return value.toISOString();
  switch (typeof value) {
    case 'string':
      return cleanString(value);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'object':
      if (level + 1 > MAX_DEPTH) return null;
      if (Array.isArray(value)) {
        return value.slice(0, MAX_MEMBERS).map((item) => cleanValue(item, level + 1) ?? null);
      }
      return cleanObject(value as Record<string, unknown>, level + 1);
    default:
      // undefined, functions, symbols, bigints: not JSON, not kept.
      return undefined;
  }
}

function cleanObject(value: Record<string, unknown>, level: number): AuditSnapshot {
  const cleaned: AuditSnapshot = {};
  for (const [member, item] of Object.entries(value).slice(0, MAX_MEMBERS)) {
    if (WITHHELD_MEMBERS.has(normalisedName(member))) continue;
    const kept = cleanValue(item, level);
    if (kept !== undefined) cleaned[cleanString(member)] = kept;
  }
  return cleaned;
}

/**
 * What an event may keep of `value`: secrets and transcript text removed by member name and secret-shaped
 * strings redacted wherever they stand, strings cut at 256 characters, at most 4 levels and 32 members per
 * level. Null stays null (no snapshot).
 */
export function auditSnapshot(value: Record<string, unknown> | null | undefined): AuditSnapshot | null {
  return value ? cleanObject(value, 1) : null;
}

/**
 * A URL as the audit log shows it: its origin (where requests go, the fact a reviewer needs) and a short
 * fingerprint of the whole URL (so a change of path or query shows), never the path or query themselves,
 * which often carry a token (`https://hooks.example.com/services/T000/B000/XXXX`).
 */
export function auditUrl(url: string): { origin: string; fingerprint: string } {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = 'invalid';
  }
  return { origin, fingerprint: createHash('sha256').update(url, 'utf8').digest('hex').slice(0, 16) };
}
