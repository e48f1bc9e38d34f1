import { describe, expect, it } from 'vitest';
import { mayHaveSession } from './signed-in-hint';

describe('mayHaveSession', () => {
  it('is true with the hint cookie, plain or __Secure-, among others', () => {
    expect(mayHaveSession('stt_signed_in=1')).toBe(true);
    expect(mayHaveSession('theme=dark; __Secure-stt_signed_in=1; x=2')).toBe(true);
  });
  it('is false without it, or for a look-alike name or value', () => {
    expect(mayHaveSession('')).toBe(false);
    expect(mayHaveSession('xstt_signed_in=1')).toBe(false);
    expect(mayHaveSession('stt_signed_in=10')).toBe(false);
  });
});
