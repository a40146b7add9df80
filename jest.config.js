const os = require('node:os');

/** One jest configuration for the whole workspace; each package's `test` script narrows it to its folder. */
/** @type {import('jest').Config} */
module.exports = {
  // At least three test files at once: much of a file's time is spent waiting on its servers,
  // PostgreSQL and timers. On a 2-core machine (where jest's default is one worker) two workers
  // halved the run (419 s against 840 s, every test passing), and a third fills the time both
  // wait: the inbound-smtp suite took 103 s instead of 127 s, the machine idle 6 % of the time
  // instead of 16 %. Elsewhere jest's default stands (one fewer than the cores).
  maxWorkers: Math.max(3, (os.availableParallelism?.() ?? os.cpus().length) - 1),
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
