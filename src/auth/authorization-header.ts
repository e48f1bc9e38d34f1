/**
 * The one reading of `Authorization: Bearer <credential>` for API keys and JWTs alike. RFC 7235: the scheme
 * is case-insensitive (`bearer`, `BEARER`) and is separated from the credential by whitespace; several
 * spaces or a tab are accepted too, as most servers do.
 */
const BEARER_CREDENTIALS = /^bearer[ \t]+(\S+)$/i;

/** The credential of a Bearer header, or null when the header is missing or is not `Bearer <credential>`. */
export function bearerCredential(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  return BEARER_CREDENTIALS.exec(authorization.trim())?.[1] ?? null;
}

const TOKEN_CREDENTIALS = /^token[ \t]+(\S+)$/i;

/**
 * The credential of Deepgram's `Authorization: Token <API key>`, which its SDK sends: accepted on the
 * Deepgram-compatible route only (CredentialResolver), and only for an API key.
 */
export function tokenCredential(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  return TOKEN_CREDENTIALS.exec(authorization.trim())?.[1] ?? null;
}

const BARE_API_KEY = /^(svc_\S+)$/;

/**
 * AssemblyAI's `Authorization: <API key>` (no scheme), which its SDK sends: accepted on the AssemblyAI-compatible
 * routes only (CredentialResolver), and only for an API key (`svc_…`).
 */
export function bareApiKey(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  return BARE_API_KEY.exec(authorization.trim())?.[1] ?? null;
}
