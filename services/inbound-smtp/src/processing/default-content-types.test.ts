import { parseMessage } from './parse-message';

const message = (text: string) => parseMessage(Buffer.from(text.replace(/\n/g, '\r\n')));
const parts = (parsed: Awaited<ReturnType<typeof parseMessage>>) => parsed.attachments.map((a) => [a.contentType, a.disposition, a.content.toString()]);

describe('a part without Content-Type in a multipart/digest (RFC 2046 §5.1.5: message/rfc822)', () => {
  test('when a digest part has no Content-Type, then it is one message/rfc822 attachment of its exact bytes, not text', async () => {
    const parsed = await message(
      'From: a@sender.example\nSubject: digest\nMIME-Version: 1.0\nContent-Type: multipart/digest; boundary=d\n\n' +
        '--d\n\nFrom: one@x.example\nSubject: one\n\nBODY ONE\n--d--\n',
    );
    expect(parsed.text).toBeNull();
    expect(parsed.html).toBeNull();
    expect(parts(parsed)).toEqual([['message/rfc822', null, 'From: one@x.example\r\nSubject: one\r\n\r\nBODY ONE']]);
  });

  test('when the digest is inside a multipart/mixed, then its parts are attachments as declared ones are, and the text is the mixed one’s', async () => {
    const parsed = await message(
      'Content-Type: multipart/mixed; boundary=m\n\n--m\nContent-Type: text/plain\n\nTopics: one, two\n' +
        '--m\nContent-Type: multipart/digest; boundary=d\n\n--d\n\nSubject: one\n\nBODY ONE\n' +
        '--d\nContent-Type: message/rfc822\n\nSubject: two\n\nBODY TWO\n--d--\n--m--\n',
    );
    expect(parsed.text).toBe('Topics: one, two');
    expect(parts(parsed)).toEqual([
      ['message/rfc822', null, 'Subject: one\r\n\r\nBODY ONE'],
      ['message/rfc822', null, 'Subject: two\r\n\r\nBODY TWO'],
    ]);
  });

  test('when a digest part declares its Content-Type, or a part without one is in a multipart/mixed, then that type counts', async () => {
    const parsed = await message(
      'Content-Type: multipart/mixed; boundary=m\n\n--m\n\nmixed text\n--m\nContent-Type: multipart/digest; boundary=d\n\n' +
        '--d\nContent-Type: application/octet-stream\n\nbytes\n--d--\n--m--\n',
    );
    expect(parsed.text).toBe('mixed text');
    expect(parts(parsed)).toEqual([['application/octet-stream', null, 'bytes']]);
  });
});

describe('a multipart that cannot be split (RFC 2045 §5.2: text/plain)', () => {
  test('when a multipart has no boundary parameter, then its body is the text', async () => {
    const parsed = await message('From: a@sender.example\nSubject: nb\nMIME-Version: 1.0\nContent-Type: multipart/mixed\n\nHello, this is the whole body.\n');
    expect(parsed.text).toBe('Hello, this is the whole body.\n');
    expect(parsed.html).toBeNull();
    expect(parsed.attachments).toEqual([]);
    expect(parsed.parseError).toBeNull();
  });

  test('when its boundary never appears in the body, then the whole body is the text, not an empty record', async () => {
    const parsed = await message('Content-Type: multipart/alternative; boundary="gone"\n\n--other\nContent-Type: text/html\n\n<p>hi</p>\n--other--\n');
    expect(parsed.text).toBe('--other\nContent-Type: text/html\n\n<p>hi</p>\n--other--\n');
    expect(parsed.html).toBeNull();
    expect(parsed.attachments).toEqual([]);
  });

  test('when a nested multipart has no boundary or an absent one, then its body is text and the parts after it are kept', async () => {
    const parsed = await message(
      'Content-Type: multipart/mixed; boundary=m\n\n--m\nContent-Type: multipart/related\n\nno boundary\n' +
        '--m\nContent-Type: multipart/alternative; boundary=never\n\nabsent boundary\n' +
        '--m\nContent-Type: application/octet-stream; name=after.bin\n\nz\n--m--\n',
    );
    expect(parsed.text).toBe('no boundary\nabsent boundary');
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['after.bin', 'z']]);
  });

  test('when a multipart has only a close delimiter, then it is an empty multipart, not text', async () => {
    const parsed = await message('Content-Type: multipart/mixed; boundary=b\n\npreamble\n--b--\nepilogue\n');
    expect(parsed.text).toBeNull();
    expect(parsed.attachments).toEqual([]);
  });
});

describe('a Content-Type that is no media type (RFC 2045 §5.2: text/plain)', () => {
  test.each([
    ['a type without a subtype', 'text'],
    ['an empty value', ''],
    ['a slash without a subtype', 'text/'],
    ['a multipart type followed by junk and no boundary', 'multipart/mixed junk'],
  ])('when a part has %s, then it is text/plain: its body is text, not a nameless attachment', async (_what, type) => {
    const parsed = await message(`Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: ${type}\n\nhello\n--b--\n`);
    expect(parsed.text).toBe('hello');
    expect(parsed.attachments).toEqual([]);
  });

  test('when the message itself says `Content-Type: text`, then its body is the text', async () => {
    const parsed = await message('Subject: s\nContent-Type: text\n\nhello\n');
    expect(parsed.text).toBe('hello\n');
    expect(parsed.attachments).toEqual([]);
  });

  test('when a media type is followed by a comment (RFC 822 CFWS), then it is that type: the HTML is the html', async () => {
    const parsed = await message('Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: Text/HTML (markup) ; charset=utf-8\n\n<p>hi</p>\n--b--\n');
    expect(parsed.html).toBe('<p>hi</p>');
    expect(parsed.attachments).toEqual([]);
  });

  test('when a media type is followed by junk instead of a `;`, then that type counts', async () => {
    const parsed = await message('Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain charset=utf-8\n\nhi\n--b\nContent-Type: image/png name=a.png\n\npng\n--b--\n');
    expect(parsed.text).toBe('hi');
    expect(parts(parsed)).toEqual([['image/png', null, 'png']]);
  });

  test.each([
    ['its `;` left out and the boundary folded onto the next line', 'multipart/mixed\n\tboundary="Bnd_X"'],
    ['a comment after the type', 'multipart/mixed (generated); boundary="Bnd_X"'],
  ])('when a multipart has %s, then it is split by its boundary, in its case', async (_what, type) => {
    const parsed = await message(`Subject: s\nContent-Type: ${type}\n\n--Bnd_X\nContent-Type: text/plain\n\nhello\n--Bnd_X\nContent-Type: image/png\n\npng\n--Bnd_X--\n`);
    expect(parsed.text).toBe('hello');
    expect(parts(parsed)).toEqual([['image/png', null, 'png']]);
  });

  test('when a part in a digest has a Content-Type that is no media type, then it is a message/rfc822, the digest default', async () => {
    const parsed = await message('Content-Type: multipart/digest; boundary=d\n\n--d\nContent-Type: text\n\nSubject: one\n\nBODY ONE\n--d--\n');
    expect(parsed.text).toBeNull();
    expect(parts(parsed)).toEqual([['message/rfc822', null, 'Subject: one\r\n\r\nBODY ONE']]);
  });
});
