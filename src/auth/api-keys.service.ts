import { Injectable } from '@nestjs/common';
import { actorOf } from '../audit/audit-log.service';
import { ProblemException } from '../common/problem/problem.exception';
import { ApiKey } from './api-key.entity';
import { ApiKeyService } from './api-key.service';
import { Principal } from '../common/principal/principal';
import { parseCidr } from './allowed-networks';
import type { CreateApiKeyDto } from './api-keys.dto';
import { Role, Scope, SCOPES, scopeBeyondRole } from '../common/principal/permission-table';
import type { Schema } from '../openapi/contract-types';

export type ApiKeyView = Schema<'ApiKey'>;

export type CreatedApiKeyView = Schema<'CreatedApiKey'>;

function toView(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    allowedNetworks: key.allowedNetworks ?? [],
    createdBy: key.userId,
    createdAt: key.createdOn.toISOString(),
    lastUsedAt: key.lastUsedOn?.toISOString() ?? null,
    expiresAt: key.expiresOn?.toISOString() ?? null,
  };
}

/**
 * The dashboard's view of a workspace's keys; the key rules themselves stay in ApiKeyService. A caller with
 * `keys:manage` (admin, owner) sees and revokes every key of the workspace, one with `keys:own` (member) only the
 * keys they created. A key is given only scopes the creator's role holds.
 */
@Injectable()
export class ApiKeysService {
  constructor(private readonly apiKeys: ApiKeyService) {}

  async list(principal: Principal): Promise<ApiKeyView[]> {
    return (await this.apiKeys.listLive(principal.workspaceId, this.onlyOwn(principal))).map(toView);
  }

  async create(principal: Principal, body: CreateApiKeyDto): Promise<CreatedApiKeyView> {
    const role = principal.role;
    if (role === undefined || principal.userId === null) {
      throw new ProblemException('forbidden', 'API keys are created by a signed-in member.');
    }
    const scopes = body.scopes ?? defaultScopes(role);
    const allowedNetworks = (body.allowedNetworks ?? []).map((network, index) => {
      const parsed = parseCidr(network);
      if (parsed === null) {
        throw ProblemException.field(
          `allowedNetworks[${index}]`,
          'each allowed network must be an IP address or a CIDR block with its host bits zero (10.0.0.0/8)',
        );
      }
      return parsed;
    });
    const created = await this.apiKeys.create(principal.workspaceId, principal.userId, {
      name: body.name.trim(),
      expiresInDays: body.expiresInDays,
      scopes,
      allowedNetworks: allowedNetworks.length > 0 ? allowedNetworks : null,
      creatorRoleCap: true,
      actor: actorOf(principal),
    });
    // A key just made has never been used: the contract states it as null.
    return { ...toView(created.key), lastUsedAt: null, key: created.apiKey };
  }

  async revoke(principal: Principal, id: string): Promise<void> {
    if (
      !(await this.apiKeys.revokeInWorkspace(
        principal.workspaceId,
        id,
        actorOf(principal),
        this.onlyOwn(principal),
      ))
    )
      throw ProblemException.notFound('The API key');
  }

  /** Whether the caller sees any key of the workspace, else the creator whose keys it sees. */
  onlyOwn(principal: Principal): string | undefined {
    return principal.permissions.has('keys:manage') ? undefined : (principal.userId ?? '');
  }
}

/** Without scopes asked: `admin` for those who hold it, else every scope the role allows (a member's). */
function defaultScopes(role: Role): Scope[] {
  if (scopeBeyondRole(role, ['admin']) === null) return ['admin'];
  return SCOPES.filter((scope) => scopeBeyondRole(role, [scope]) === null);
}
