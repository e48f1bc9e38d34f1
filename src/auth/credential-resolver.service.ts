import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { Authenticator } from 'passport';
import { ProblemException } from '../common/problem/problem.exception';
import {
  API_KEY_BEARER_STRATEGY,
  API_KEY_HEADER_STRATEGY,
  ApiKeyBearerStrategy,
  ApiKeyHeaderStrategy,
} from './api-key.strategy';
import { bareApiKey, bearerCredential, tokenCredential } from './authorization-header';
import { DEEPGRAM_LISTEN_PATH, isAssemblyAiRequest, requestPath } from '../common/http/request-path';
import { JWT_STRATEGY, JwtStrategy } from './jwt.strategy';
import { AuthOutcome, Principal, RequestWithAuth } from '../common/principal/principal';
import { SessionCookies } from './session/session-cookies';

/**
 * Works out who is calling without throwing: the outcome is kept on the request so rate limiting can use
 * it first, and the global guard turns a failure into the right 401/403 afterwards.
 */
@Injectable()
export class CredentialResolver {
  /**
   * This application's own passport instance with its own strategies: the global one keeps the strategies of
   * the last application created in the process, so a second application (tests, CLI) would otherwise
   * authenticate with the first one's database connection after that one closed.
   */
  private readonly passport = new Authenticator();

  constructor(
    jwt: JwtStrategy,
    headerKey: ApiKeyHeaderStrategy,
    bearerKey: ApiKeyBearerStrategy,
    private readonly cookies: SessionCookies,
  ) {
    this.passport.use(JWT_STRATEGY, jwt);
    this.passport.use(API_KEY_HEADER_STRATEGY, headerKey);
    this.passport.use(API_KEY_BEARER_STRATEGY, bearerKey);
  }

  async resolve(request: RequestWithAuth, response: Response): Promise<AuthOutcome> {
    const authorization = request.headers.authorization;
    const headerKey = request.headers['x-api-key'];
    if (authorization === undefined && headerKey === undefined) {
      // The dashboard's session cookie, for GET/HEAD only (EventSource and <audio> cannot send a header).
      return this.cookies.sessionCredential(request) === null
        ? { kind: 'anonymous' }
        : this.run(JWT_STRATEGY, request, response);
    }
    if (authorization !== undefined) {
      const deepgram = requestPath(request) === DEEPGRAM_LISTEN_PATH;
      if (deepgram && tokenCredential(authorization) !== null) {
        return this.run(API_KEY_BEARER_STRATEGY, request, response);
      }
      // AssemblyAI's SDK sends the key itself as the header (`Authorization: <API key>`), on its routes only.
      if (isAssemblyAiRequest(request) && bareApiKey(authorization) !== null) {
        return this.run(API_KEY_BEARER_STRATEGY, request, response);
      }
      const credential = bearerCredential(authorization);
      if (credential === null) {
        return failed(
          'unauthorized',
          deepgram
            ? 'The Authorization header must be `Token <API key>` or `Bearer <credential>`.'
            : 'The Authorization header must be `Bearer <credential>`.',
        );
      }
      if (credential.startsWith('svc_')) return this.run(API_KEY_BEARER_STRATEGY, request, response);
      if (credential.split('.').length === 3) return this.run(JWT_STRATEGY, request, response);
      return failed('invalid-api-key', 'The bearer credential is neither an API key nor a JWT.');
    }
    if (typeof headerKey !== 'string' || headerKey.trim() === '') {
      return failed('unauthorized', 'The X-API-KEY header is empty.');
    }
    return this.run(API_KEY_HEADER_STRATEGY, request, response);
  }

  private run(strategy: string, request: RequestWithAuth, response: Response): Promise<AuthOutcome> {
    return new Promise<AuthOutcome>((resolve, reject) => {
      const callback = (error: unknown, principal: Principal | false | undefined, info: unknown): void => {
        if (error instanceof ProblemException) return resolve({ kind: 'failed', problem: error });
        if (error)
          return reject(error instanceof Error ? error : new Error('Authentication strategy failed'));
        if (principal) return resolve({ kind: 'authenticated', principal });
        resolve(
          strategy === JWT_STRATEGY
            ? jwtFailure(info)
            : failed('invalid-api-key', 'The API key is not known.'),
        );
      };
      const authenticate = this.passport.authenticate(strategy, { session: false }, callback) as (
        req: RequestWithAuth,
        res: Response,
        next: (error?: unknown) => void,
      ) => void;
      authenticate(request, response, (error?: unknown) =>
        reject(
          error instanceof Error ? error : new Error('Authentication strategy ended without an outcome'),
        ),
      );
    });
  }
}

function jwtFailure(info: unknown): AuthOutcome {
  const name = (info as { name?: unknown } | null)?.name;
  if (name === 'TokenExpiredError') return failed('invalid-token', 'The token has expired.');
  if (name === 'NotBeforeError') return failed('invalid-token', 'The token is not valid yet.');
  return failed('invalid-token', 'The token signature or algorithm is not valid.');
}

function failed(slug: 'unauthorized' | 'invalid-api-key' | 'invalid-token', detail: string): AuthOutcome {
  return { kind: 'failed', problem: new ProblemException(slug, detail) };
}
