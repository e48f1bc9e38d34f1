import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { HttpConfig } from './http.config';
import { requestPath } from './request-path';

/**
 * The interactive reference (swagger-ui) loads its scripts, styles and the contract from this origin and
 * uses inline styles and data: images; nothing may frame it (clickjacking).
 */
const DOCS_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
/**
 * The operators' queue board (Bull Board, /admin): the same, except that its page sets `<base href>` to the
 * board's path (its asset URLs are relative), so base-uri allows this origin. The Google Fonts stylesheet its
 * page links is blocked (style-src), so no third party learns who opens the board.
 */
const ADMIN_BOARD_POLICY = DOCS_POLICY.replace("base-uri 'none'", "base-uri 'self'");
/**
 * The dashboard (/app): its own scripts and styles only (no inline script or style element; React sets styles
 * through the DOM, which style-src does not govern), API calls and the audio player to this origin, blob:
 * for the export downloads it builds in the page.
 */
const WEB_APP_POLICY = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self'",
  "style-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
/** Everything else is data, never a page: it may load nothing and be framed by nobody. */
export const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * Headers of every response, set before anything can answer (routes, the problem filter, /docs, 404s):
 * `nosniff` so a browser never runs a JSON or problem body as script or HTML, a CSP, and for a request that
 * carries a credential (header or cookie) `Cache-Control: private, no-store` (a workspace's data must not be kept by shared or
 * browser caches). Handlers that know better (the SSE stream, the public language list) set their own.
 */
export function securityHeaders(request: Request, response: Response, next: NextFunction): void {
  response.setHeader('X-Content-Type-Options', 'nosniff');
  const path = requestPath(request);
  if (path === '/docs' || path.startsWith('/docs/')) {
    response.setHeader('Content-Security-Policy', DOCS_POLICY);
    response.setHeader('X-Frame-Options', 'DENY');
  } else if (path === '/app' || path.startsWith('/app/')) {
    response.setHeader('Content-Security-Policy', WEB_APP_POLICY);
    response.setHeader('X-Frame-Options', 'DENY');
  } else if (path === '/admin' || path.startsWith('/admin/')) {
    response.setHeader('Content-Security-Policy', ADMIN_BOARD_POLICY);
    response.setHeader('X-Frame-Options', 'DENY');
  } else {
    response.setHeader('Content-Security-Policy', API_POLICY);
  }
  // A cookie counts too: the dashboard's session cookie authenticates GETs such as the audio (Path=/v1).
  const { authorization, cookie } = request.headers;
  if (authorization !== undefined || cookie !== undefined || request.headers['x-api-key'] !== undefined) {
    response.setHeader('Cache-Control', 'private, no-store');
  }
  next();
}

/**
 * Cross-origin access only for the origins an operator lists in CORS_ORIGINS; with none (the default) no
 * Access-Control-* header is ever sent and browsers keep other sites from reading any answer.
 */
export function enableConfiguredCors(app: NestExpressApplication, config: HttpConfig): void {
  if (config.CORS_ORIGINS.length === 0) return;
  app.enableCors({
    origin: config.CORS_ORIGINS,
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: [
      'Authorization',
      'X-API-KEY',
      'Content-Type',
      'Idempotency-Key',
      'Last-Event-ID',
      'X-Request-Id',
    ],
    exposedHeaders: [
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'Retry-After',
      'Content-Disposition',
      'X-Request-Id',
    ],
    maxAge: 600,
  });
}
