/**
 * Jest runs the TypeScript sources as native ES modules (NestJS 12 ships ESM
 * only), so it needs `NODE_OPTIONS=--experimental-vm-modules`: use the npm
 * scripts.
 *
 * @type {import('jest').Config}
 */
const shared = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // Sources import each other as `./file.js`, as Node's ESM resolution needs.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  setupFiles: ['<rootDir>/test/support/load-nest-first.ts'],
};

export default {
  // The e2e suites start the compiled service, some of them several times.
  testTimeout: 60_000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      // Database faults, shutdown under load, several instances: slower, and run in turn.
      ...shared,
      displayName: 'faults',
      testMatch: ['<rootDir>/test/faults/**/*.fault-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      // The Swagger UI in headless Chromium (skipped, and said so, where there is none).
      ...shared,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
