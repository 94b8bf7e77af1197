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
  // Four files at a time on two cores: most of the tier's time is waiting (on sockets, timers and
  // the real processes the signal tests stop), not computing. One at a time took 7 min 53 s, three
  // 3 min 20 s, four 2 min 26 s, every test passing each time (docs/tests.md, "The unit tier's time").
  maxWorkers: 4,
  // The commands a test starts as processes of their own start from a build made once (test/support/build.ts).
  globalSetup: '<rootDir>/test/unit/global-setup.ts',
  globalTeardown: '<rootDir>/test/unit/global-teardown.ts',
  // A test that leaks a keep-alive socket must not hang CI until its time limit.
  forceExit: true,
};
