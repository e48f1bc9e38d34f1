import { Injectable } from '@nestjs/common';
import { actorOf } from '../audit/audit-log.service';
import { ProblemException } from '../common/problem/problem.exception';
import { ApiKey } from './api-key.entity';
import { ApiKeyService } from './api-key.service';
import { Principal } from '../common/principal/principal';
import type { Schema } from '../openapi/contract-types';

export type ApiKeyView = Schema<'ApiKey'>;

export type CreatedApiKeyView = Schema<'CreatedApiKey'>;

function toView(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    createdAt: key.createdOn.toISOString(),
    lastUsedAt: key.lastUsedOn?.toISOString() ?? null,
    expiresAt: key.expiresOn?.toISOString() ?? null,
  };
}

/** The dashboard's view of a workspace's keys; the key rules themselves stay in ApiKeyService. */
@Injectable()
export class ApiKeysService {
  constructor(private readonly apiKeys: ApiKeyService) {}

  async list(workspaceId: string): Promise<ApiKeyView[]> {
    return (await this.apiKeys.listLive(workspaceId)).map(toView);
  }

  async create(principal: Principal, name: string, expiresInDays?: number): Promise<CreatedApiKeyView> {
    const created = await this.apiKeys.create(principal.workspaceId, principal.userId, {
      name: name.trim(),
      expiresInDays,
      actor: actorOf(principal),
    });
    // A key just made has never been used: the contract states it as null.
    return { ...toView(created.key), lastUsedAt: null, key: created.apiKey };
  }

  async revoke(principal: Principal, id: string): Promise<void> {
    if (!(await this.apiKeys.revokeInWorkspace(principal.workspaceId, id, actorOf(principal))))
      throw ProblemException.notFound('The API key');
  }
}
