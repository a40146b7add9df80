import { request } from 'node:http';
import { type RunningHaproxy, startHaproxy } from '../../../test/support/haproxy';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway';

/** A sign-in attempt (unknown user) to `port`, from `localAddress`, with extra headers; resolves with the status. */
function signIn(port: number, options: { localAddress?: string; forwardedFor?: string } = {}): Promise<number> {
  const body = JSON.stringify({ email: 'nobody@example.com', password: 'wrong password' });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/auth/login',
        localAddress: options.localAddress,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(options.forwardedFor ? { 'x-forwarded-for': options.forwardedFor } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const portOf = (t: TestGateway) => Number(new URL(t.gateway.url).port);

describe('the sign-in budget per client (LOGIN_RATE_LIMIT_PER_MINUTE=2)', () => {
  describe('GATEWAY_TRUST_PROXY off (the default)', () => {
    let t: TestGateway;
    beforeAll(async () => {
      t = await startTestGateway({ label: 'xffoff', env: { LOGIN_RATE_LIMIT_PER_MINUTE: '2' } });
    });
    afterAll(() => t.close());

    test('when a client writes a new X-Forwarded-For on every attempt, then they all spend its own address\'s budget', async () => {
      expect(await signIn(portOf(t), { forwardedFor: '198.51.100.1' })).toBe(401);
      expect(await signIn(portOf(t), { forwardedFor: '198.51.100.2' })).toBe(401);
      expect(await signIn(portOf(t), { forwardedFor: '198.51.100.3' })).toBe(429);
    });
  });

  describe('GATEWAY_TRUST_PROXY=true, behind a real HAProxy appending X-Forwarded-For (as an ingress does)', () => {
    let t: TestGateway;
    let haproxy: RunningHaproxy;
    beforeAll(async () => {
      t = await startTestGateway({ label: 'xffon', env: { LOGIN_RATE_LIMIT_PER_MINUTE: '2', GATEWAY_TRUST_PROXY: 'true' } });
      haproxy = await startHaproxy({ backendPort: portOf(t), mode: 'http' });
    });
    afterAll(async () => {
      await haproxy.stop();
      await t.close();
    });

    test('when two clients sign in through the proxy, then each has a budget of its own, and a forged X-Forwarded-For does not refill it', async () => {
      expect(await signIn(haproxy.port, { localAddress: '127.0.0.2' })).toBe(401);
      expect(await signIn(haproxy.port, { localAddress: '127.0.0.2' })).toBe(401);
      // HAProxy appends the real client after what the client wrote; the last entry counts.
      expect(await signIn(haproxy.port, { localAddress: '127.0.0.2', forwardedFor: '203.0.113.50' })).toBe(429);
      // Without the proxy's header every client would be the proxy (127.0.0.1), one budget for all.
      expect(await signIn(haproxy.port, { localAddress: '127.0.0.3' })).toBe(401);
    });

    test('when IPv6 clients sign in, then one /64 shares a budget whatever the address, and another /64 has its own', async () => {
      expect(await signIn(portOf(t), { forwardedFor: '2001:db8:1:2::1' })).toBe(401);
      expect(await signIn(portOf(t), { forwardedFor: '[2001:db8:1:2:dead:beef:0:9]:443' })).toBe(401);
      expect(await signIn(portOf(t), { forwardedFor: '2001:0db8:0001:0002::77' })).toBe(429);
      expect(await signIn(portOf(t), { forwardedFor: '2001:db8:1:3::1' })).toBe(401);
    });
  });
});
