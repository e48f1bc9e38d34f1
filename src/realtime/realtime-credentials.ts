import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { apiKeyLiveSql } from '../auth/api-key.service';
import { signInLiveSql } from '../auth/session/sign-in-locks';
import type { Principal } from '../common/principal/principal';

/**
 * The credential a realtime session stands on, for as long as it runs: the API key that opened it, the dashboard
 * sign-in (and its user's place in the workspace), or, for a session opened with a client secret, the credential
 * that minted the secret. When it ends (the key revoked or expired, a sign-out, a new password, the user deleted
 * or moved out of the workspace) the session ends too (RealtimeSession.checkCredential).
 */
export type LiveCredential =
  | { kind: 'api-key'; apiKeyId: string }
  | { kind: 'user'; workspaceId: string; userId: string; signInId: string | null };

/** What `principal` stands on; null when nothing about it can end (an operator's credential). */
export function liveCredentialOf(principal: Principal): LiveCredential | null {
  const apiKeyId = principal.apiKeyId ?? principal.mintedBy?.apiKeyId ?? null;
  if (apiKeyId !== null) return { kind: 'api-key', apiKeyId };
  if (principal.userId === null) return null;
  return {
    kind: 'user',
    workspaceId: principal.workspaceId,
    userId: principal.userId,
    signInId: principal.signInId ?? principal.mintedBy?.signInId ?? null,
  };
}

@Injectable()
export class RealtimeCredentials {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Whether the credential still stands, read from the rows its ending changes (one indexed query). */
  async isLive(credential: LiveCredential): Promise<boolean> {
    const rows: Array<{ live: boolean }> =
      credential.kind === 'api-key'
        ? await this.dataSource.query(`SELECT ${apiKeyLiveSql('$1::uuid')} AS live`, [credential.apiKeyId])
        : await this.dataSource.query(
            `SELECT EXISTS (SELECT 1 FROM users u WHERE u.id = $1 AND u.active_workspace_id = $2)
                AND ($3::uuid IS NULL OR ${signInLiveSql('$3::uuid', '$1::uuid')}) AS live`,
            [credential.userId, credential.workspaceId, credential.signInId],
          );
    return rows[0]?.live === true;
  }
}
