import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { writePerTurn } from './writes-per-turn';

/** A loopback pair: the server side with writePerTurn, and the chunks the client reads. */
async function pair(): Promise<{ server: Server; serverSide: Socket; client: Socket; chunks: string[]; ended: Promise<unknown> }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const accepted = once(server, 'connection');
  const client = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' });
  const [serverSide] = (await accepted) as [Socket];
  writePerTurn(serverSide);
  const chunks: string[] = [];
  client.setEncoding('latin1');
  client.on('data', (chunk: string) => chunks.push(chunk));
  return { server, serverSide, client, chunks, ended: once(client, 'end') };
}

async function received(chunks: string[], text: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (chunks.join('') !== text) {
    if (Date.now() > deadline) throw new Error(`expected ${JSON.stringify(text)}, got ${JSON.stringify(chunks.join(''))}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('writes per turn', () => {
  test('when three replies are written in one turn of the event loop, then none leaves before the turn ends, and the client reads them in one chunk, in order', async () => {
    const { server, serverSide, client, chunks } = await pair();
    const replies = ['250 2.1.0 Accepted\r\n', '250 2.1.5 Accepted\r\n', '354 End data with <CR><LF>.<CR><LF>\r\n'];
    for (const reply of replies) serverSide.write(reply);
    // Unbatched, each write would have gone to the kernel at once (nothing left buffered).
    expect(serverSide.writableLength).toBe(replies.join('').length);
    await received(chunks, replies.join(''));
    expect(serverSide.writableLength).toBe(0);
    expect(chunks).toHaveLength(1);
    client.destroy();
    serverSide.destroy();
    server.close();
  });

  test('when replies are written in later turns, then each still leaves, and end() sends what is buffered', async () => {
    const { server, serverSide, client, chunks, ended } = await pair();
    serverSide.write('250 first\r\n');
    await received(chunks, '250 first\r\n');
    await new Promise((resolve) => setImmediate(resolve));
    serverSide.write('250 second\r\n');
    await received(chunks, '250 first\r\n250 second\r\n');
    serverSide.write('221 Bye\r\n');
    serverSide.end();
    await received(chunks, '250 first\r\n250 second\r\n221 Bye\r\n');
    await ended;
    client.destroy();
    serverSide.destroy();
    server.close();
  });
});
