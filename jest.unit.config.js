/**
 * The unit tier: everything under test/unit/, which needs no lab (local sockets and temporary
 * files at most), so it runs first and fails fast before the lab tier's minutes of setup.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/unit'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testTimeout: 60000,
  // The commands a test starts as processes of their own start from a build made once (test/support/build.ts).
  globalSetup: '<rootDir>/test/unit/global-setup.ts',
  globalTeardown: '<rootDir>/test/unit/global-teardown.ts',
  // A test that leaks a keep-alive socket must not hang CI until its time limit.
  forceExit: true,
};
