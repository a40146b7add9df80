/** One jest configuration for the whole workspace; each package's `test` script narrows it to its folder. */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }],
  },
  // Prisma's generated client imports its siblings with a .ts suffix.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.ts$': '$1' },
  globalSetup: '<rootDir>/test/global-setup.ts',
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  testTimeout: 30_000,
};
