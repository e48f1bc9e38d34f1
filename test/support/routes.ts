import type { INestApplication } from '@nestjs/common';

interface ExpressLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/**
 * Every API route the Nest application registered on Express (the versioned `/v1/` paths and AssemblyAI's `/v2/` and `/v3/`; `/docs` and
 * `/openapi.json` are the contract's own delivery, not operations), as `{method, path}` with `{param}` placeholders.
 */
export function registeredRoutes(app: INestApplication): Array<{ method: string; path: string }> {
  const express = app.getHttpAdapter().getInstance() as { router?: { stack: ExpressLayer[] } };
  const stack = express.router?.stack ?? [];
  return stack.flatMap((layer) =>
    layer.route && /^\/v[123]\//.test(layer.route.path)
      ? Object.keys(layer.route.methods)
          .filter((method) => method !== '_all')
          .map((method) => ({
            method: method.toUpperCase(),
            path: layer.route!.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
          }))
      : [],
  );
}
