import { parseMessage } from './parse-message';

const message = (text: string) => parseMessage(Buffer.from(text.replace(/\n/g, '\r\n')));

describe('delimiters of enclosing multiparts (RFC 2046 §5.1.2: recognised at any level of nesting)', () => {
  test('when a nested multipart is never closed, then the outer delimiter ends it and the next part is an attachment', async () => {
    const parsed = await message(
      'Content-Type: multipart/mixed; boundary=outer\n\n--outer\nContent-Type: multipart/alternative; boundary=inner\n\n' +
        '--inner\nContent-Type: text/plain\n\nplain\n--inner\nContent-Type: text/html\n\n<p>html</p>\n' +
        '--outer\nContent-Type: application/octet-stream; name=tail.bin\nContent-Transfer-Encoding: base64\n\nAAECAw==\n--outer--\n',
    );
    expect(parsed.text).toBe('plain');
    expect(parsed.html).toBe('<p>html</p>');
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString('hex')])).toEqual([['tail.bin', '00010203']]);
  });

  test('when two levels are left open, then a delimiter three levels up still ends them', async () => {
    const parsed = await message(
      'Content-Type: multipart/mixed; boundary=a\n\n--a\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: multipart/alternative; boundary=c\n\n' +
        '--c\nContent-Type: text/plain\n\ndeep text\n--a\nContent-Type: application/octet-stream; name=x.bin\n\nxyz\n--a--\nepilogue\n',
    );
    expect(parsed.text).toBe('deep text');
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['x.bin', 'xyz']]);
  });

  test('when an outer delimiter follows a part with only headers, then that part is kept, and so is the next one', async () => {
    const parsed = await message(
      'Content-Type: multipart/mixed; boundary=a\n\n--a\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\ninner text\n' +
        '--b\nContent-Type: application/pdf; name=empty.pdf\n--a\nContent-Type: application/octet-stream; name=after.bin\n\nz\n--a--\nepilogue\n',
    );
    expect(parsed.text).toBe('inner text');
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([
      ['empty.pdf', ''],
      ['after.bin', 'z'],
    ]);
  });

  test('when a line only looks like an outer delimiter, then it stays text', async () => {
    const parsed = await message(
      'Content-Type: multipart/mixed; boundary=a\n\n--a\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\n--ab\n--a-\n-- a\n--b--\n--a--\n',
    );
    expect(parsed.text).toBe('--ab\n--a-\n-- a');
  });
});
