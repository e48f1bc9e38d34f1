import { describe, expect, it } from 'vitest';
import { singleSignOnHint } from './single-sign-on';

describe('singleSignOnHint', () => {
  it('links to the start of a workspace given by id, and nothing else', () => {
    const id = '6f1c1b9e-6c1b-4c55-9f0e-2c7a0a1b2c3d';
    expect(singleSignOnHint(`?sso=${id}`).startUrl).toBe(`/v1/auth/sso/start?workspace=${id}`);
    expect(singleSignOnHint('?sso=https://evil.example').startUrl).toBeNull();
    expect(singleSignOnHint('').startUrl).toBeNull();
  });

  it("words each of the callback's refusals, and an unknown one", () => {
    expect(singleSignOnHint('?sso_error=email-domain').error).toMatch(/not in a domain/);
    expect(singleSignOnHint('?sso_error=state').error).toMatch(/started in this browser/);
    expect(singleSignOnHint('?sso_error=<script>').error).toBe('Single sign-on failed. Start again.');
    expect(singleSignOnHint('?other=1').error).toBeNull();
  });
});
