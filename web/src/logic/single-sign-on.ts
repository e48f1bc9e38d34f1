/**
 * The sign-in page's single sign-on: the link a workspace's members are given (`/app/?sso=<workspace id>`,
 * the `signInUrl` of GET /v1/workspace/sso leads to the same start) and the reason the service sent the browser
 * back with (`/app/?sso_error=<reason>`, the callback's refusal, openapi.yaml `completeSsoSignIn`).
 */
const REASONS: Record<string, string> = {
  state:
    'The single sign-on answer did not belong to a sign-in started in this browser (or it took over 10 minutes). Start again.',
  'not-configured': 'This workspace no longer has single sign-on. Sign in with your password.',
  provider: 'Your identity provider refused the sign-in or could not be reached. Start again.',
  token:
    "Your identity provider's answer could not be verified. Ask your administrator to check the setting.",
  'email-unverified': 'Your identity provider does not confirm your email address.',
  'email-domain': "Your email address is not in a domain this workspace's single sign-on admits.",
};

export interface SingleSignOnHint {
  /** Where the "Sign in with single sign-on" link leads, when the page was opened with `?sso=<id>`. */
  startUrl: string | null;
  /** Why the last single sign-on was refused, in words. */
  error: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function singleSignOnHint(search: string): SingleSignOnHint {
  const params = new URLSearchParams(search);
  const workspace = params.get('sso');
  const reason = params.get('sso_error');
  return {
    startUrl: workspace && UUID.test(workspace) ? `/v1/auth/sso/start?workspace=${workspace}` : null,
    error: reason === null ? null : (REASONS[reason] ?? 'Single sign-on failed. Start again.'),
  };
}
