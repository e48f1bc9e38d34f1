import type { Request } from 'express';
import type { Permission, Role } from './permission-table';
import type { ProblemException } from '../problem/problem.exception';

/** Who is calling: always bound to exactly one workspace. */
export interface Principal {
  workspaceId: string;
  /** Null for an API key without a user (its creator was deleted, or an operator made it for the workspace). */
  userId: string | null;
  /** `client-secret`: a realtime session opened with a minted client secret (src/realtime/client-secrets). */
  credential: 'api-key' | 'jwt' | 'client-secret';
  /** Rate-limit bucket: per API key, or per user for JWTs. */
  rateLimitKey: string;
  /** The API key that authenticated the call (its request log); absent for a session (JWT). */
  apiKeyId?: string;
  /** The dashboard sign-in (refresh-token family, the access token's `sid`) of a JWT that belongs to one. */
  signInId?: string;
  /** A sign-in made through the workspace's single sign-on: it acts in that workspace only. */
  viaSso?: true;
  /** A client secret's session: the credential that minted the secret (the session ends when it does). */
  mintedBy?: { apiKeyId: string | null; signInId: string | null };
  /** What the caller may do (src/common/principal/permission-table.ts): a member's role, a key's scopes. */
  permissions: ReadonlySet<Permission>;
  /** A signed-in member's role in the workspace; absent for API keys and client secrets. */
  role?: Role;
  /** An API key's allowed client networks (CIDR); absent: any network. */
  allowedNetworks?: readonly string[];
}

export type AuthOutcome =
  | { kind: 'anonymous' }
  | { kind: 'authenticated'; principal: Principal }
  | { kind: 'failed'; problem: ProblemException };

export interface RequestWithAuth extends Request {
  auth?: AuthOutcome;
}
