import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { credentialLiveSql } from '../auth/credential-liveness';
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

  /** Whether the credential still stands: the same rule as a client secret's redemption (credentialLiveSql). */
  async isLive(credential: LiveCredential): Promise<boolean> {
    const rows: Array<{ live: boolean }> = await this.dataSource.query(
      `SELECT ${credentialLiveSql({
        apiKeyId: '$1::uuid',
        userId: '$2::uuid',
        workspaceId: '$3::uuid',
        signInId: '$4::uuid',
      })} AS live`,
      credential.kind === 'api-key'
        ? [credential.apiKeyId, null, null, null]
        : [null, credential.userId, credential.workspaceId, credential.signInId],
    );
    return rows[0]?.live === true;
  }
}
