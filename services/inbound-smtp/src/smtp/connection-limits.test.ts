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

  test('when IPv6 clients connect from many addresses of one /64, then they share its limit; another /64 has its own', () => {
    const limits = new ConnectionLimits(2);
    expect(limits.admit('a', '2001:db8:1:2::1')).toBe(true);
    expect(limits.admit('b', '2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(true);
    expect(limits.admit('c', '2001:db8:1:2:abcd::9')).toBe(false);
    expect(limits.admit('d', '2001:db8:1:3::1')).toBe(true);
    limits.release('a');
    expect(limits.admit('e', '2001:0db8:0001:0002:0:0:0:5')).toBe(true);
  });
});
