import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import type { Logger } from '@mailroom/core';
import { TransportPool } from './transport-pool';

const silentLogger = { warn: () => undefined } as unknown as Logger;
const message = { envelope: { from: 'a@example.test', to: ['b@example.test'] }, raw: Buffer.from('Subject: x\r\n\r\nx\r\n') };

describe('TransportPool', () => {
  it('when a key is asked for again, then the same transport is returned', () => {
    const pool = new TransportPool({ maxTransports: 10, logger: silentLogger });
    const options = () => ({ host: '127.0.0.1', port: 1 });
    expect(pool.get('a', options)).toBe(pool.get('a', options));
    expect(pool.size).toBe(1);
    pool.close();
  });

  it('when there are more pools than allowed, then the least recently used idle one is closed and a busy one is kept', async () => {
    // Accepts connections and never greets, so a send to it stays in flight.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket)).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as AddressInfo;
    const pool = new TransportPool({ maxTransports: 1, logger: silentLogger });

    const busy = pool.get('busy', () => ({ host: '127.0.0.1', port, connectionTimeout: 300, greetingTimeout: 300 }));
    const busySend = busy.sendMail(message).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 50)); // until the send reaches the pool's queue
    const idle = pool.get('idle', () => ({ host: '127.0.0.1', port: 1 }));
    pool.get('newest', () => ({ host: '127.0.0.1', port: 1 }));

    expect(pool.size).toBe(2);
    await expect(idle.sendMail(message)).rejects.toThrow(/pool was closed/);
    // The busy pool was left alone: its send ends on its own (greeting timeout), not by eviction.
    expect(String(await busySend)).toMatch(/Greeting never received/);

    pool.close();
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
});
