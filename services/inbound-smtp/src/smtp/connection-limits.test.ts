import { ConnectionLimits } from './connection-limits';

describe('connections per client IP', () => {
  test('when an IP has its maximum, then it is refused until one of its sessions closes; other IPs are not affected', () => {
    const limits = new ConnectionLimits(2);
    expect(limits.admit('a', '192.0.2.1')).toBe(true);
    expect(limits.admit('b', '192.0.2.1')).toBe(true);
    expect(limits.admit('c', '192.0.2.1')).toBe(false);
    expect(limits.admit('d', '192.0.2.2')).toBe(true);
    limits.release('c');
    expect(limits.admit('e', '192.0.2.1')).toBe(false);
    limits.release('a');
    expect(limits.admit('f', '192.0.2.1')).toBe(true);
    expect(limits.open).toBe(3);
  });
});
