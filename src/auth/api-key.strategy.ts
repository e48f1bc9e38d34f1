import { Injectable } from '@nestjs/common';
import { ProblemException } from '../common/problem/problem.exception';
import { ApiKeyService } from './api-key.service';
import { AuthOutcome } from './principal';

/**
 * A revoked key gets the unknown key's answer word for word: the answer must not tell whoever holds a leaked
 * key that it once existed. An expired key says so, since expiry is the owner's own schedule (documented).
 */
const REJECTION_DETAIL = {
  unknown: 'The API key is not known.',
  revoked: 'The API key is not known.',
  expired: 'The API key has expired.',
} as const;

/**
 * Authenticates an API key however it arrived (`Authorization: Bearer svc_live_…` or `X-API-KEY`); reading
 * the headers is the credential resolver's job.
 */
@Injectable()
export class ApiKeyStrategy {
  constructor(private readonly apiKeys: ApiKeyService) {}

  async authenticate(apiKey: string): Promise<AuthOutcome> {
    const outcome = await this.apiKeys.verify(apiKey);
    if ('rejected' in outcome) {
      return {
        kind: 'failed',
        problem: new ProblemException('invalid-api-key', REJECTION_DETAIL[outcome.rejected]),
      };
    }
    const { key } = outcome;
    return {
      kind: 'authenticated',
      principal: {
        workspaceId: key.workspaceId,
        userId: key.userId,
        credential: 'api-key',
        rateLimitKey: `key:${key.id}`,
      },
    };
  }
}
