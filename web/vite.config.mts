import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dashboard (issue 13), served by the service at /app from dist/web. Vite's own JSX transform (oxc, React's
 * automatic runtime): @vitejs/plugin-react does not install here, and fast refresh is not needed for a build.
 */
export default defineConfig({
  root,
  base: '/app/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
  },
  test: {
    root,
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
