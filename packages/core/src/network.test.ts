import { clientBlock, isPrivateAddress } from './network';

describe('isPrivateAddress', () => {
  test.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1', 'not-an-ip',
    // IPv6 outside 2000::/3: IPv4-compatible loopback, an unassigned block, NAT64 and 6to4 of loopback.
    '::7f00:1', '::127.0.0.1', '4000::1', 'e000::1', '64:ff9b::7f00:1', '2002:7f00:1::',
  ])('when the address is %s, then it is private', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  test.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8'])(
    'when the address is %s, then it is public',
    (ip) => {
      expect(isPrivateAddress(ip)).toBe(false);
    },
  );
});

describe('clientBlock', () => {
  test.each([
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0DB8:0000:0000:1:2:3:4', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['2001:db8:1:2:3::', '2001:db8:1:2::/64'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['192.0.2.1', '192.0.2.1'],
  ])('when the client is %s, then it counts as %s', (ip, block) => {
    expect(clientBlock(ip)).toBe(block);
  });
});
