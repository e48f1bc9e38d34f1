import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { ProblemException } from '../common/problem/problem.exception';
import { ApiKeyService } from './api-key.service';
import { bareApiKey, bearerCredential, tokenCredential } from './authorization-header';
import { Principal } from '../common/principal/principal';
import { permissionsOfScopes } from '../common/principal/permission-table';

export const API_KEY_HEADER_STRATEGY = 'api-key-header';
export const API_KEY_BEARER_STRATEGY = 'api-key-bearer';

/**
 * A revoked key gets the unknown key's answer word for word: the answer must not tell whoever holds a leaked
 * key that it once existed. An expired key says so, since expiry is the owner's own schedule (documented).
 */
const REJECTION_DETAIL = {
  unknown: 'The API key is not known.',
  revoked: 'The API key is not known.',
  expired: 'The API key has expired.',
} as const;

async function principalForKey(apiKeys: ApiKeyService, apiKey: string): Promise<Principal> {
  const outcome = await apiKeys.verify(apiKey);
  if ('rejected' in outcome)
    throw new ProblemException('invalid-api-key', REJECTION_DETAIL[outcome.rejected]);
  const { key } = outcome;
  await apiKeys.noteUse(key);
  return {
    workspaceId: key.workspaceId,
    userId: key.userId,
    credential: 'api-key',
    rateLimitKey: `key:${key.id}`,
    apiKeyId: key.id,
    permissions: permissionsOfScopes(key.scopes),
    ...(key.allowedNetworks?.length ? { allowedNetworks: key.allowedNetworks } : {}),
  };
}

/** `X-API-KEY: svc_live_…` */
@Injectable()
export class ApiKeyHeaderStrategy extends PassportStrategy(HeaderAPIKeyStrategy, API_KEY_HEADER_STRATEGY) {
  constructor(private readonly apiKeys: ApiKeyService) {
    super({ header: 'X-API-KEY', prefix: '' }, false);
  }

  validate(apiKey: string): Promise<Principal> {
    return principalForKey(this.apiKeys, apiKey.trim());
  }
}

/**
 * `Authorization: Bearer svc_live_…` (or Deepgram's `Token svc_live_…` on its route). The strategy hands over the whole header (no prefix: its prefix match
 * is case-sensitive) and the scheme is read by the one Authorization parser, case-insensitively (RFC 7235).
 */
@Injectable()
export class ApiKeyBearerStrategy extends PassportStrategy(HeaderAPIKeyStrategy, API_KEY_BEARER_STRATEGY) {
  constructor(private readonly apiKeys: ApiKeyService) {
    super({ header: 'Authorization', prefix: '' }, false);
  }

  validate(authorization: string): Promise<Principal> {
    // `Token <key>` and a bare key reach this strategy only from the Deepgram- and AssemblyAI-compatible routes
    // (CredentialResolver decides which header form a route takes).
    const key =
      bearerCredential(authorization) ?? tokenCredential(authorization) ?? bareApiKey(authorization) ?? '';
    return principalForKey(this.apiKeys, key);
  }
}
