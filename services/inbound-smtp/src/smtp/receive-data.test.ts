import { PassThrough } from 'node:stream';
import { receiveData } from './receive-data';

function feed(chunks: (string | Buffer)[]): PassThrough {
  const stream = new PassThrough();
  setImmediate(() => {
    for (const c of chunks) stream.write(c);
    stream.end();
  });
  return stream;
}

describe('reading a DATA stream', () => {
  test('when every line fits, then the exact bytes come back, however they were chunked', async () => {
    const chunks = ['Subject: x\r', '\n\r\n', 'a'.repeat(10), '\r', '\nbare\nlf\n'];
    const result = await receiveData(feed(chunks), { maxLineBytes: 10 });
    expect(result).toEqual({ ok: true, raw: Buffer.from(chunks.join('')) });
  });

  test('when a line is exactly the limit, then it is accepted; one byte more, then it is refused', async () => {
    expect((await receiveData(feed(['x'.repeat(6), 'y'.repeat(4), '\r\n']), { maxLineBytes: 10 })).ok).toBe(true);
    expect((await receiveData(feed(['x'.repeat(10), '\r']), { maxLineBytes: 10 })).ok).toBe(true);
    expect(await receiveData(feed(['x'.repeat(6), 'y'.repeat(5), '\r\n']), { maxLineBytes: 10 })).toEqual({ ok: false, reason: 'line' });
    expect(await receiveData(feed(['ok\r\n', 'x'.repeat(11)]), { maxLineBytes: 10 })).toEqual({ ok: false, reason: 'line' });
  });

  test('when a line too long arrives in small chunks, then it is refused; short lines in many chunks pass', async () => {
    expect(await receiveData(feed(['xxxx', 'xxxx', 'xxx\r\n']), { maxLineBytes: 10 })).toEqual({ ok: false, reason: 'line' });
    expect(await receiveData(feed(['ab\r\nxxxx', 'xxxx', 'xx\r', '\nyy\r\n']), { maxLineBytes: 10 })).toEqual({ ok: true, raw: Buffer.from('ab\r\nxxxxxxxxxx\r\nyy\r\n') });
    expect(await receiveData(feed(['ab\r\nxxxx', 'xxxx', 'xxx\r\n']), { maxLineBytes: 10 })).toEqual({ ok: false, reason: 'line' });
  });

  test('when the stream is over SIZE, then it is refused for size', async () => {
    const stream = feed(['a\r\n', 'b\r\n']) as PassThrough & { sizeExceeded?: boolean };
    stream.sizeExceeded = true;
    expect(await receiveData(stream)).toEqual({ ok: false, reason: 'size' });
  });

  test('when the stream is destroyed before its end, then it is aborted', async () => {
    const stream = new PassThrough();
    setImmediate(() => {
      stream.write('partial');
      stream.destroy(new Error('Connection closed'));
    });
    expect(await receiveData(stream)).toEqual({ ok: false, reason: 'aborted' });
  });
});
