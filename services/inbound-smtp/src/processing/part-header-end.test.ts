import { parseMessage } from './parse-message';

const message = (text: string, lineEnd = '\r\n') => parseMessage(Buffer.from(text.replace(/\n/g, lineEnd)));
const mixed = (...parts: string[]) => `Subject: s\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n${parts.map((p) => `--b\n${p}\n`).join('')}--b--\n`;

describe('a part whose body starts without the empty line after its header section (as Python reads it)', () => {
  test.each([
    ['CRLF', '\r\n'],
    ['bare LF', '\n'],
  ])('when a text part (%s) has no empty line after its fields, then its text starts at the first line that is no field', async (_ends, lineEnd) => {
    const parsed = await message(mixed('Content-Type: text/plain; charset=utf-8\nHello there,\nsecond line'), lineEnd);
    expect(parsed.text).toBe('Hello there,\nsecond line');
    expect(parsed.attachments).toEqual([]);
  });

  test('when a base64 attachment has its data right after its fields, then every byte is kept, not 0 bytes', async () => {
    const parsed = await message(
      mixed('Content-Type: text/plain\n\nsee attached', 'Content-Type: application/octet-stream; name="a.bin"\nContent-Transfer-Encoding: base64\nAAECAwQF\nBgc='),
    );
    expect(parsed.text).toBe('see attached');
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString('hex')])).toEqual([['a.bin', '0001020304050607']]);
  });

  test('when a part has no header fields at all, then all of it is its body (text/plain by default)', async () => {
    const parsed = await message(mixed('just words here', 'Content-Type: text/html\n\n<p>hi</p>'));
    expect(parsed.text).toBe('just words here');
    expect(parsed.html).toBe('<p>hi</p>');
  });

  test('when the body line is the part’s last, then the line end before the delimiter is not kept in it (RFC 2046 §5.1.1)', async () => {
    const parsed = await message(mixed('Content-Type: text/csv; name="a.csv"\nContent-Disposition: attachment\na,b'));
    expect(parsed.attachments.map((a) => [a.contentType, a.content.toString()])).toEqual([['text/csv', 'a,b']]);
  });

  test('when a field is folded or the next line is a delimiter, then the header section is read as before', async () => {
    const parsed = await message(mixed('Content-Type: text/plain;\n charset=utf-8\n\nfolded', 'Content-Type: text/plain'));
    expect(parsed.text).toBe('folded');
  });

  test('when a forwarded message part has its message right after its fields, then that message is the attachment', async () => {
    const parsed = await message(mixed('Content-Type: text/plain\n\nforwarding', 'Content-Type: message/rfc822\nthe forwarded words'));
    expect(parsed.text).toBe('forwarding');
    expect(parsed.attachments.map((a) => [a.contentType, a.content.toString()])).toEqual([['message/rfc822', 'the forwarded words']]);
  });

  test('when the message’s own header section has a colonless line before its empty line, then it stays a header (withBodyWhereFieldsEnd)', async () => {
    const parsed = await message('X-One: 1\nnot a header\nSubject: s\n\nbody\n');
    expect(parsed.subject).toBe('s');
    expect(parsed.text).toBe('body\n');
  });
});
