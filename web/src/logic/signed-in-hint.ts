/** The service's readable hint that a refresh cookie was set (see `login` in openapi.yaml). */
const HINT = /(?:^|;\s*)(?:__Secure-)?stt_signed_in=1(?:;|$)/;

/** Whether a session may be restored on load: only then is /v1/auth/refresh asked (no 401 probe). */
export function mayHaveSession(cookieHeader: string): boolean {
  return HINT.test(cookieHeader);
}
