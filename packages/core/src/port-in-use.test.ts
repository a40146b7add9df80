import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { listenOnHost, PortInUseError } from './port-in-use';

/** The address a connection to `host` shows the server, or the error that refused it. */
function connectFrom(server: Server, host: string): Promise<string> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    server.once('connection', (socket) => {
      resolve(socket.remoteAddress ?? '');
      socket.destroy();
    });
    const client = connect({ host, port });
    client.on('connect', () => client.end());
    client.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
}

describe('listenOnHost', () => {
  const servers: Server[] = [];
  const open = async (host: string | undefined, port = 0) => {
    const server = createServer();
    servers.push(server);
    await listenOnHost(server, port, host, 'TEST_PORT');
    return server;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  test('when no host is given, then it listens on every address: IPv6 and IPv4 peers both connect', async () => {
    const server = await open(undefined);
    expect((server.address() as AddressInfo).address).toBe('::');
    expect(await connectFrom(server, '::1')).toBe('::1');
    expect(await connectFrom(server, '127.0.0.1')).toBe('::ffff:127.0.0.1');
  });

  test('when a host is given, then only there', async () => {
    const server = await open('127.0.0.1');
    expect((server.address() as AddressInfo).address).toBe('127.0.0.1');
    expect(await connectFrom(server, '::1')).toBe('ECONNREFUSED');
  });

  test('when the port is taken, then a PortInUseError names the variable', async () => {
    const taken = await open(undefined);
    await expect(open(undefined, (taken.address() as AddressInfo).port)).rejects.toBeInstanceOf(PortInUseError);
  });
});
