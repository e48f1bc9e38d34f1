import { Controller, Get, Query, UseFilters } from '@nestjs/common';
import { AssemblyAiErrorFilter } from '../../assemblyai-compat/assemblyai-error.filter';
import { CurrentPrincipal } from '../../common/principal/current-principal.decorator';
import type { Principal } from '../../common/principal/principal';
import { RequirePermission } from '../../common/principal/require-permission.decorator';
import { ProblemException } from '../../common/problem/problem.exception';
import type { Schema } from '../../openapi/contract-types';
import { RealtimeClientSecretsService } from '../client-secrets/realtime-client-secrets.service';

/** AssemblyAI's bounds for a temporary streaming token and the session it opens (their streaming-token.yml). */
const TOKEN_SECONDS = { min: 1, max: 600 } as const;
const SESSION_SECONDS = { min: 60, max: 10_800 } as const;

/**
 * GET /v3/token, AssemblyAI's temporary streaming token, so its SDK's `streaming.createTemporaryToken` works
 * unchanged: a client secret (the same store, limits and liveness rules as POST /v1/realtime/client_secrets) that
 * opens one /v3/ws session. Errors in AssemblyAI's shape.
 */
@Controller('v3')
@UseFilters(AssemblyAiErrorFilter)
export class AssemblyAiTokenController {
  constructor(private readonly clientSecrets: RealtimeClientSecretsService) {}

  @RequirePermission('transcriptions:write')
  @Get('token')
  token(
    @CurrentPrincipal() principal: Principal,
    @Query() query: Record<string, unknown>,
  ): Promise<Schema<'AssemblyAiStreamingToken'>> {
    const expiresIn = wholeNumber(query, 'expires_in_seconds', TOKEN_SECONDS, undefined);
    const maxSession = wholeNumber(
      query,
      'max_session_duration_seconds',
      SESSION_SECONDS,
      SESSION_SECONDS.max,
    );
    return this.clientSecrets.mintStreamingToken(principal, expiresIn, maxSession);
  }
}

function wholeNumber(
  query: Record<string, unknown>,
  name: string,
  bounds: { min: number; max: number },
  fallback: number | undefined,
): number {
  const raw = query[name];
  if (raw === undefined || raw === '') {
    if (fallback !== undefined) return fallback;
    throw ProblemException.field(name, `${name} is required (${bounds.min} to ${bounds.max}).`);
  }
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw ProblemException.field(name, `${name} must be a whole number from ${bounds.min} to ${bounds.max}.`);
  }
  return value;
}
