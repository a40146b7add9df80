import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EndOfTurnAnswers } from './end-of-turn';

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function listen(handler: (path: string, res: ServerResponse) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => handler(req.url ?? '/', res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('EndOfTurnAnswers', () => {
  test('an answer is written after the turn that queued it, with its status, headers and body', async () => {
    const answers = new EndOfTurnAnswers(() => undefined);
    const { server, port } = await listen((path, res) => {
      answers.answer(res, 200, ['content-type', 'image/gif', 'x-path', path], Buffer.from('GIF89a'));
      // Still queued when the handler returns: nothing was written in this turn.
      expect(res.headersSent).toBe(false);
      expect(answers.size).toBeGreaterThan(0);
    });
    try {
      const answered = await Promise.all(Array.from({ length: 20 }, (_, i) => get(port, `/o/${i}`)));
      expect(answered).toEqual(Array.from({ length: 20 }, () => ({ status: 200, body: 'GIF89a' })));
      expect(answers.size).toBe(0);
    } finally {
      server.close();
    }
  });

  test('an answer that cannot be written goes to onError and the others of its turn are still answered', async () => {
    const failures: unknown[] = [];
    const answers = new EndOfTurnAnswers((err, res) => {
      failures.push(err);
      res.writeHead(500);
      res.end('failed');
    });
    const { server, port } = await listen((path, res) => {
      // A header value Node refuses (a line break) makes writeHead throw.
      if (path === '/bad') answers.answer(res, 302, ['location', 'https://a.example/\r\nset-cookie: x=1']);
      else answers.answer(res, 302, ['location', 'https://a.example/ok', 'content-length', '0']);
    });
    try {
      const [bad, good] = await Promise.all([get(port, '/bad'), get(port, '/good')]);
      expect(bad).toEqual({ status: 500, body: 'failed' });
      expect(good).toEqual({ status: 302, body: '' });
      expect(failures).toHaveLength(1);
    } finally {
      server.close();
    }
  });

  test('a client gone before the end of the turn is skipped, not an error', async () => {
    const failures: unknown[] = [];
    const answers = new EndOfTurnAnswers((err) => failures.push(err));
    let queued!: ServerResponse;
    const { server, port } = await listen((_path, res) => {
      queued = res;
      res.destroy();
      answers.answer(res, 200, ['content-length', '0']);
    });
    try {
      await expect(get(port, '/o/x')).rejects.toThrow();
      await new Promise((resolve) => setImmediate(resolve));
      expect(queued.headersSent).toBe(false);
      expect(failures).toEqual([]);
      expect(answers.size).toBe(0);
    } finally {
      server.close();
    }
  });
});
