import { bounceSuppressesAddress } from './bounce-suppression';

describe('bounceSuppressesAddress', () => {
  test.each([
    ['5.1.1', true],
    ['5.1.10', true],
    ['5.1.2', true],
    ['5.1.7', false],
    ['5.1.8', false],
    ['5.7.1', false],
    ['5.2.2', false],
    ['4.1.1', false],
    ['5.0.0', false],
    [null, false],
    ['', false],
  ] as const)('when the enhanced code is %s, then suppressing is %s', (code, expected) => {
    expect(bounceSuppressesAddress(code)).toBe(expected);
  });
});
