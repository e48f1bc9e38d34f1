import { apiKeyLiveSql } from './api-key.service';
import { signInLiveSql } from './session/sign-in-locks';

/**
 * SQL expressions (columns or parameters) naming a credential: its API key, else its user, the workspace it acts
 * in and its dashboard sign-in (null for a token without one).
 */
export interface CredentialColumns {
  apiKeyId: string;
  userId: string;
  workspaceId: string;
  signInId: string;
}

/**
 * The one rule for "this credential still opens its workspace": the API key live (not revoked, not expired), or
 * the user still in the workspace and, for a sign-in's token, the sign-in not ended. Used where a realtime client
 * secret is redeemed (its minting credential) and by every open realtime session (RealtimeCredentials).
 */
export function credentialLiveSql(columns: CredentialColumns): string {
  return `(CASE WHEN ${columns.apiKeyId} IS NOT NULL THEN ${apiKeyLiveSql(columns.apiKeyId)}
  ELSE EXISTS (SELECT 1 FROM users credential_user WHERE credential_user.id = ${columns.userId}
      AND credential_user.active_workspace_id = ${columns.workspaceId})
    AND (${columns.signInId} IS NULL OR ${signInLiveSql(columns.signInId, columns.userId)}) END)`;
}
