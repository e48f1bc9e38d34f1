import type { AuditEvent } from '../api/types';

/** The Audit page's filters as the form holds them: empty strings for "any". */
export interface AuditFilters {
  action: string;
  actorType: string;
  actorId: string;
  targetType: string;
  targetId: string;
  /** `datetime-local` values (the browser's local time, `2026-01-31T12:00`). */
  from: string;
  to: string;
}

export const NO_FILTERS: AuditFilters = {
  action: '',
  actorType: '',
  actorId: '',
  targetType: '',
  targetId: '',
  from: '',
  to: '',
};

/**
 * The query of listAuditEvents and exportAuditEvents for these filters: only the ones given, ids trimmed, local
 * times as ISO 8601 instants. A time the browser cannot read is left out rather than sent malformed.
 */
export function auditQuery(filters: AuditFilters): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of ['action', 'actorType', 'actorId', 'targetType', 'targetId'] as const) {
    const value = filters[name].trim();
    if (value) query.set(name, value);
  }
  for (const name of ['from', 'to'] as const) {
    const value = filters[name].trim();
    const instant = value ? new Date(value) : null;
    if (instant && !Number.isNaN(instant.getTime())) query.set(name, instant.toISOString());
  }
  return query;
}

/** Who did it, in words: `user 1a2b…`, `API key 3c4d…`, `operator (CLI)`, `anonymous`. */
export function describeActor(actor: AuditEvent['actor']): string {
  switch (actor.type) {
    case 'user':
      return `user ${shortId(actor.userId)}`;
    case 'api_key':
      return `API key ${shortId(actor.apiKeyId)}`;
    case 'operator':
      return 'operator (CLI)';
    case 'anonymous':
      return 'anonymous';
  }
}

/** What it was about: `api_key 3c4d…`, or nothing. */
export function describeTarget(target: AuditEvent['target']): string {
  if (!target) return '—';
  return target.id ? `${target.type} ${shortId(target.id)}` : target.type;
}

export function shortId(id: string | null): string {
  return id ? `${id.slice(0, 8)}…` : '—';
}

/** before → after, as compact JSON, for settings; the facts of the act otherwise. */
export function describeChange(event: Pick<AuditEvent, 'before' | 'after' | 'details'>): string | null {
  const parts: string[] = [];
  if (event.before) parts.push(`before ${JSON.stringify(event.before)}`);
  if (event.after) parts.push(`after ${JSON.stringify(event.after)}`);
  if (event.details) parts.push(JSON.stringify(event.details));
  return parts.length > 0 ? parts.join(' · ') : null;
}
