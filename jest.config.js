/** Tests run against the real regtest lab, brought up once in globalSetup. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/test/lab/global-setup.ts',
  globalTeardown: '<rootDir>/test/lab/global-teardown.ts',
  testTimeout: 120000,
  // A test that leaks a keep-alive socket must not hang CI until its time limit.
  forceExit: true,
};
