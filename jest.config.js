/**
 * Tiers (each one has its own npm script; `npm test` runs them all):
 * - unit: pure logic next to the code (*.spec.ts in src/, bench/ and test/): no native binaries or
 *   child processes, no database, no sockets; temporary files are allowed.
 * - integration: one module against the real thing, without the HTTP API (*.integration-spec.ts): ffmpeg,
 *   PocketSphinx, whisper.cpp, the onnx VAD, engine child processes, the S3 emulator, loopback HTTP peers.
 *   Engine children and recogniser threads run from dist/: `npm run build` first.
 * - e2e: the service over HTTP against real PostgreSQL and Redis; chaos: faults (killed processes, outages,
 *   full disks); fuzz: contract-driven bad input. These three share the per-run database set-up.
 */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];
const base = {
  testEnvironment: 'node',
  rootDir: '.',
  transform: {
    '^.+\\.ts$': tsJest,
    // ESM-only packages, turned into CommonJS for Jest (see the transformer).
    '/node_modules/(@nestjs/terminus|openid-client|oauth4webapi|jose)/.+\\.js$':
      '<rootDir>/test/support/esm-package-transform.js',
  },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs/terminus|openid-client|oauth4webapi|jose)/)'],
};
module.exports = {
  // `--shard` by measured seconds rather than by a hash of the path (scripts/run-tests.mjs's e2e lanes).
  testSequencer: '<rootDir>/test/support/balanced-sequencer.js',
  // Jest's summary, then each project's time and counts and every skipped test by name (.ci/run shows them).
  reporters: ['default', '<rootDir>/test/support/project-timing-reporter.js'],
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/{src,bench,test}/**/*.spec.ts'],
    },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['<rootDir>/{src,bench,test/support}/**/*.integration-spec.ts'],
    },
    ...['e2e', 'chaos', 'fuzz'].map((tier) => ({
      ...base,
      displayName: tier,
      testMatch: [`<rootDir>/test/**/*.${tier}-spec.ts`],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-setup.ts'],
    })),
    // The dashboard in Debian's Chromium (playwright-core) against node dist/main.js serving dist/web.
    {
      ...base,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-setup.ts'],
    },
  ],
};
