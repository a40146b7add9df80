import type { IncomingMessage } from 'node:http';
import { clientAddress } from './client-address';

const request = (forwardedFor: string | string[] | undefined, remoteAddress = '10.1.2.3') =>
  ({ headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress } }) as unknown as IncomingMessage;

describe('clientAddress', () => {
  test('when the proxy is trusted, then the last X-Forwarded-For entry is the client, its port and IPv6 zone dropped', () => {
    expect(clientAddress(request('198.51.100.9, 203.0.113.7'), true)).toBe('203.0.113.7');
    expect(clientAddress(request(['198.51.100.9', '203.0.113.7:51234']), true)).toBe('203.0.113.7');
    expect(clientAddress(request('[2001:db8::7]:443'), true)).toBe('2001:db8::7');
    expect(clientAddress(request('fe80::1%eth0'), true)).toBe('fe80::1');
    expect(clientAddress(request('[fe80::1%eth0]:443'), true)).toBe('fe80::1');
    expect(clientAddress(request('::ffff:192.0.2.1'), true)).toBe('192.0.2.1');
  });

  test('when the last entry is no IP address, then the socket’s address stands, never the text', () => {
    for (const entry of ['garbage', 'unknown', '', ' ', '198.51.100.9, not-an-ip', '<script>', '999.1.1.1']) {
      expect([entry, clientAddress(request(entry), true)]).toEqual([entry, '10.1.2.3']);
    }
  });

  test('when the proxy is not trusted, then the header is ignored', () => {
    expect(clientAddress(request('203.0.113.7'), false)).toBe('10.1.2.3');
    expect(clientAddress(request(undefined, '::ffff:127.0.0.1'), false)).toBe('127.0.0.1');
  });
});
