import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { NextFunction, Request, Response } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const WEB_APP_PATH = '/app';

/** Where `npm run build` puts the dashboard (vite build --config web/vite.config.ts). */
export const WEB_APP_DIRECTORY = join(__dirname, '..', 'web');

/**
 * The dashboard: the built single-page app under /app. Vite's hashed files under /app/assets never
 * change, so browsers keep them a year; index.html is revalidated every time so a deployment shows at once.
 * Any other /app/* path is a client-side route and gets index.html (the SPA fallback). Not an API operation:
 * mounted on Express like /docs, so it is not in openapi.yaml's paths. A build without web/ (e.g. only
 * `tsc`) serves nothing here: /app is then an ordinary 404.
 */
export function mountWebApp(app: NestExpressApplication, directory = WEB_APP_DIRECTORY): void {
  if (!existsSync(join(directory, 'index.html'))) return;
  const assets = express.static(join(directory, 'assets'), {
    immutable: true,
    maxAge: '365d',
    index: false,
  });
  // A missing asset is a 404, never index.html (a browser would run the page as a script).
  const missingAsset = (_request: Request, response: Response): void => {
    response.status(404).type('text/plain').send('Not Found');
  };
  const files = express.static(directory, {
    index: false,
    redirect: false,
    setHeaders: (response) => response.setHeader('Cache-Control', 'no-cache'),
  });
  const sendIndex = (request: Request, response: Response, next: NextFunction): void => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    response.setHeader('Cache-Control', 'no-cache');
    response.sendFile(join(directory, 'index.html'), (error) => error && next(error));
  };
  app.use(`${WEB_APP_PATH}/assets`, assets, missingAsset);
  app.use(WEB_APP_PATH, files, sendIndex);
}
