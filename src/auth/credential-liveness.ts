import { apiKeyLiveSql } from './api-key.service';
import { rolesWith } from '../common/principal/permission-table';
import { signInLiveSql } from './sign-in-locks';

/** The roles that may stream (from the one permission table), as an SQL list. */
const STREAMING_ROLES = rolesWith('transcriptions:write')
  .map((role) => `'${role}'`)
  .join(', ');

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
 * the user still a member of the workspace with a role that may stream (removed or made viewer: ended) and, for
 * a sign-in's token, the sign-in not ended. Used where a realtime client
 * secret is redeemed (its minting credential) and by every open realtime session (RealtimeCredentials).
 */
export function credentialLiveSql(columns: CredentialColumns): string {
  return `(CASE WHEN ${columns.apiKeyId} IS NOT NULL THEN ${apiKeyLiveSql(columns.apiKeyId)}
  ELSE EXISTS (SELECT 1 FROM workspace_members credential_member
      WHERE credential_member.user_id = ${columns.userId} AND credential_member.workspace_id = ${columns.workspaceId}
        AND credential_member.role IN (${STREAMING_ROLES}))
    AND (${columns.signInId} IS NULL OR ${signInLiveSql(columns.signInId, columns.userId)}) END)`;
}
