import type { NextFunction, Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerCredential } from '../auth/authorization-header';
import { ProblemConfig } from '../common/problem/problem.config';
import { sendProblem } from '../common/problem/problem-details.filter';
import { ProblemException } from '../common/problem/problem.exception';

const BASIC_CREDENTIALS = /^basic[ \t]+([A-Za-z0-9+/=]+)$/i;

/**
 * The operator token a request presents: `Authorization: Bearer <token>` (scripts, curl), or HTTP Basic with
 * the token as password and any user name (a browser's login prompt). Null when neither is there.
 */
export function presentedAdminToken(authorization: string | undefined): string | null {
  const bearer = bearerCredential(authorization);
  if (bearer !== null) return bearer;
  const basic = BASIC_CREDENTIALS.exec(authorization?.trim() ?? '')?.[1];
  if (basic === undefined) return null;
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : decoded.slice(colon + 1);
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Lets through only requests that present ADMIN_TOKEN; the others get 401 problem+json with a Basic
 * challenge, so a browser asks for it. Digests are compared, so the comparison is constant-time whatever
 * the lengths.
 */
export function adminAccess(config: ProblemConfig, token: string) {
  const expected = digest(token);
  return (request: Request, response: Response, next: NextFunction): void => {
    const presented = presentedAdminToken(request.headers.authorization);
    if (presented !== null && timingSafeEqual(digest(presented), expected)) return next();
    sendProblem(
      response,
      config,
      new ProblemException(
        'unauthorized',
        'Send the operator token as `Authorization: Bearer <ADMIN_TOKEN>`, or as the password of HTTP Basic authentication.',
        {},
        { 'WWW-Authenticate': 'Basic realm="admin"' },
      ),
    );
  };
}
