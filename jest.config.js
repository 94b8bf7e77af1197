/** Tests run against the real regtest lab, brought up once in globalSetup. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/test/lab/global-setup.ts',
  globalTeardown: '<rootDir>/test/lab/global-teardown.ts',
  testTimeout: 120000,
};
