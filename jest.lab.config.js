/**
 * The lab tier: the tests in test/ outside test/unit/, against the real regtest lab that
 * globalSetup brings up once for the whole tier.
 */
const unit = require('./jest.unit.config.js');

module.exports = {
  ...unit,
  roots: ['<rootDir>/test'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/unit/'],
  globalSetup: '<rootDir>/test/lab/global-setup.ts',
  globalTeardown: '<rootDir>/test/lab/global-teardown.ts',
  testSequencer: '<rootDir>/test/lab/sequencer.js',
  testTimeout: 120000,
};
