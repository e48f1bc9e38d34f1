import { auditSnapshot, auditUrl, MAX_STRING_LENGTH, REDACTED } from './audit-snapshot';

describe('auditSnapshot', () => {
  it('keeps settings and facts as they are', () => {
    expect(
      auditSnapshot({
        audioDays: 30,
        transcriptDays: null,
        enabled: true,
        events: ['transcription.completed'],
        when: new Date('2026-01-31T12:00:00.000Z'),
      }),
    ).toEqual({
      audioDays: 30,
      transcriptDays: null,
      enabled: true,
      events: ['transcription.completed'],
      when: '2026-01-31T12:00:00.000Z',
    });
    expect(auditSnapshot(null)).toBeNull();
    expect(auditSnapshot(undefined)).toBeNull();
  });

  it('drops secrets and transcript text by member name, at any depth and however they are spelt', () => {
    const snapshot = auditSnapshot({
      name: 'CI',
      secret: 'whsec_x',
      previous_secret: 'whsec_y',
      'api-key': 'k',
      Password: 'p',
      keyHash: 'h',
      resultText: 'the words that were said',
      nested: { token: 't', refreshToken: 'r', words: [{ word: 'hello' }], kept: 1 },
    });
    expect(snapshot).toEqual({ name: 'CI', nested: { kept: 1 } });
  });

  it('redacts secret-shaped strings wherever they stand: API keys, signing secrets, JWTs', () => {
    const key = `svc_live_${'A1b2'.repeat(10)}`;
    const signing = `whsec_${'Zz9_-'.repeat(8)}`;
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLWhlcmUtb2s';
    const snapshot = auditSnapshot({
      note: `key ${key} and ${signing}`,
      list: [jwt],
      prefix: key.slice(0, 12),
    });
    expect(snapshot).toEqual({
      note: `key ${REDACTED} and ${REDACTED}`,
      list: [REDACTED],
      // A key's visible prefix (12 characters, as listings show it) is not a secret and stays.
      prefix: key.slice(0, 12),
    });
    expect(JSON.stringify(snapshot)).not.toContain(key);
  });

  it('bounds an event: long strings cut, deep nesting and wide objects trimmed', () => {
    const snapshot = auditSnapshot({
      long: 'x'.repeat(5000),
      deep: { a: { b: { c: { d: 'too deep' } } } },
      wide: Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`m${index}`, index])),
    });
    expect((snapshot?.long as string).length).toBe(MAX_STRING_LENGTH + 1);
    expect(snapshot?.deep).toEqual({ a: { b: { c: null } } });
    expect(Object.keys(snapshot?.wide as object)).toHaveLength(32);
  });
});

describe('auditUrl', () => {
  it('keeps where a URL sends, never its path or query, and tells two URLs apart', () => {
    const slack = auditUrl('https://hooks.example.com/services/T000/B000/XXXXSECRET?token=abc');
    expect(slack.origin).toBe('https://hooks.example.com');
    expect(JSON.stringify(slack)).not.toMatch(/XXXXSECRET|token|abc/);
    expect(slack.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(auditUrl('https://hooks.example.com/services/other').fingerprint).not.toBe(slack.fingerprint);
    // A URL with credentials in it, assembled so that no credential-shaped literal sits in the source.
    const withCredentials = new URL('https://example.com/x');
    withCredentials.username = 'user';
    withCredentials.password = 'pass';
    expect(auditUrl(withCredentials.href).origin).toBe('https://example.com');
  });
});
