import { isTestAddress, testAddressOutcome } from './test-addresses';

describe('test addresses', () => {
  test.each([
    ['delivered@sandbox.mailroom.test', 'delivered'],
    ['Bounced@Sandbox.Mailroom.Test', 'bounced'],
    ['complained@sandbox.mailroom.test', 'complained'],
    ['delayed+signup@sandbox.mailroom.test', 'delayed'],
    ['suppressed@sandbox.mailroom.test', 'suppressed'],
    ['anyone@sandbox.mailroom.test', 'delivered'],
    ['bounced@example.test', null],
    ['bounced@notsandbox.mailroom.test', null],
  ] as const)('when the address is %s, then the outcome is %s', (address, outcome) => {
    expect(testAddressOutcome(address)).toBe(outcome);
    expect(isTestAddress(address)).toBe(outcome !== null);
  });
});
