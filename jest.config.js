/**
 * Tiers: unit tests next to the code (pure logic); e2e tests over HTTP against real PostgreSQL and Redis;
 * chaos (faults: killed processes, outages, full disks) and fuzz (contract-driven bad input) suites.
 */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/bench/**/*.spec.ts'],
      transform: { '^.+\\.ts$': tsJest },
    },
    ...['e2e', 'chaos', 'fuzz'].map((tier) => ({
      displayName: tier,
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: [`<rootDir>/test/**/*.${tier}-spec.ts`],
      transform: { '^.+\\.ts$': tsJest },
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-setup.ts'],
    })),
  ],
};
