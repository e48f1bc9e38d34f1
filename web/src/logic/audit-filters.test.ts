import { describe, expect, it } from 'vitest';
import { auditQuery, describeActor, describeChange, describeTarget, NO_FILTERS } from './audit-filters';

describe('auditQuery', () => {
  it('sends only the filters given, trimmed', () => {
    expect(auditQuery(NO_FILTERS).toString()).toBe('');
    const query = auditQuery({
      ...NO_FILTERS,
      action: 'api_key.created',
      actorId: ' 0b7c5d1e-8a4f-4c2e-9d3b-1f2a3b4c5d6e ',
      targetType: 'api_key',
    });
    expect(Object.fromEntries(query)).toEqual({
      action: 'api_key.created',
      actorId: '0b7c5d1e-8a4f-4c2e-9d3b-1f2a3b4c5d6e',
      targetType: 'api_key',
    });
  });

  it('turns local times into ISO instants and leaves out a time it cannot read', () => {
    const query = auditQuery({ ...NO_FILTERS, from: '2026-01-31T12:00', to: 'not a time' });
    expect(query.get('from')).toBe(new Date('2026-01-31T12:00').toISOString());
    expect(query.has('to')).toBe(false);
  });
});

describe('describing an event', () => {
  it('names the actor and the target briefly', () => {
    const id = '0b7c5d1e-8a4f-4c2e-9d3b-1f2a3b4c5d6e';
    expect(describeActor({ type: 'user', userId: id, apiKeyId: null, credential: 'session' })).toBe(
      'user 0b7c5d1e…',
    );
    expect(describeActor({ type: 'api_key', userId: null, apiKeyId: id, credential: 'api_key' })).toBe(
      'API key 0b7c5d1e…',
    );
    expect(describeActor({ type: 'operator', userId: null, apiKeyId: null, credential: 'cli' })).toBe(
      'operator (CLI)',
    );
    expect(describeTarget({ type: 'webhook', id })).toBe('webhook 0b7c5d1e…');
    expect(describeTarget({ type: 'audit_log', id: null })).toBe('audit_log');
    expect(describeTarget(null)).toBe('—');
  });

  it('shows a setting before and after', () => {
    expect(describeChange({ before: { audioDays: null }, after: { audioDays: 7 }, details: null })).toBe(
      'before {"audioDays":null} · after {"audioDays":7}',
    );
    expect(describeChange({ before: null, after: null, details: null })).toBeNull();
  });
});
