import { parseMessage } from './parse-message';
import { metaCharset, undeclaredText } from './undeclared-charset';

/** A message from its text, LF line ends made CRLF, each char one byte (Latin-1), so `\xe9` is the byte 0xE9. */
const latin1 = (text: string) => parseMessage(Buffer.from(text.replace(/\n/g, '\r\n'), 'latin1'));
const known = (label: string) => label !== 'x-nonsense';

describe('body text in no charset a decoder can honour', () => {
  test('when a message without MIME headers has 8-bit text that is not UTF-8, then it is read as Windows-1252, not U+FFFD', async () => {
    const parsed = await latin1('From: a@sender.example\nSubject: latin1\n\ncaf\xe9 \x93quoted\x94 \x80\n');
    expect(parsed.text).toBe('café “quoted” €\n');
  });

  test('when a part of a multipart/mixed has no Content-Type, then its 8-bit text is read the same way', async () => {
    const parsed = await latin1('Content-Type: multipart/mixed; boundary=b\n\n--b\n\ncaf\xe9\n--b--\n');
    expect(parsed.text).toBe('café');
  });

  test('when a part says charset=us-ascii but has 8-bit bytes, then they are read the same way', async () => {
    expect((await latin1('Content-Type: text/plain; charset=us-ascii\n\ncaf\xe9\n')).text).toBe('café\n');
    expect((await latin1('Content-Type: text/plain; charset="ASCII"\n\ncaf\xe9\n')).text).toBe('café\n');
  });

  test('when a part names a charset no decoder knows, then its text is read the same way', async () => {
    expect((await latin1('Content-Type: text/plain; charset=x-nonsense\n\ncaf\xe9\n')).text).toBe('café\n');
  });

  test('when undeclared 8-bit text is valid UTF-8, then it stays UTF-8', async () => {
    const parsed = await parseMessage(Buffer.from('Subject: s\r\n\r\nNaïve café — 日本\r\n'));
    expect(parsed.text).toBe('Naïve café — 日本\n');
  });

  test('when a part declares a charset a decoder knows, then it is honoured as declared, UTF-8 included', async () => {
    expect((await latin1('Content-Type: text/plain; charset=iso-8859-2\n\n\xb3\xf3d\xbc\n')).text).toBe('łódź\n');
    expect((await latin1('Content-Type: text/plain; charset=utf-8\n\ncaf\xe9\n')).text).toBe('caf\uFFFD\n');
  });

  test.each([
    ['a charset attribute', '<meta charset="windows-1252">'],
    ['an http-equiv Content-Type', '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">'],
    ['an unquoted charset after a comment', '<!-- <meta charset="utf-8"> --><meta name=x charset=latin1>'],
  ])('when HTML declares its charset only in a meta tag (%s), then the meta charset is used', async (_what, meta) => {
    const parsed = await latin1(`Content-Type: text/html\n\n<html><head>${meta}</head><p>caf\xe9 \x80</p>\n`);
    expect(parsed.html).toBe(`<html><head>${meta}</head><p>café €</p>\n`);
  });

  test('when HTML’s meta names another charset than it was written in, then the meta still counts, as for a browser', async () => {
    const parsed = await latin1('Content-Type: text/html\n\n<meta charset="iso-8859-5"><p>\xbf\xe0\xd8\xd2\xd5\xe2</p>\n');
    expect(parsed.html).toBe('<meta charset="iso-8859-5"><p>Привет</p>\n');
  });

  test('when HTML declares a charset in Content-Type, then it wins over the meta', async () => {
    const parsed = await parseMessage(Buffer.from('Content-Type: text/html; charset=utf-8\r\n\r\n<meta charset="iso-8859-5"><p>café</p>\r\n'));
    expect(parsed.html).toBe('<meta charset="iso-8859-5"><p>café</p>\n');
  });

  test('when HTML has no usable meta charset, then it is read as undeclared text is', async () => {
    expect((await latin1('Content-Type: text/html\n\n<p>caf\xe9</p>\n')).html).toBe('<p>café</p>\n');
    expect((await latin1('Content-Type: text/html; charset=us-ascii\n\n<meta charset="x-nonsense"><p>caf\xe9</p>\n')).html).toBe('<meta charset="x-nonsense"><p>café</p>\n');
  });
});

describe('undeclaredText', () => {
  test('when bytes are valid UTF-8, then they are UTF-8; otherwise every byte is Windows-1252', () => {
    expect(undeclaredText(Buffer.from('Grüße “x”'))).toBe('Grüße “x”');
    // „Gruß“: DF 93 is a UTF-8 character by chance; the text is still not UTF-8.
    expect(undeclaredText(Buffer.from([0x84, 0x47, 0x72, 0x75, 0xdf, 0x93]))).toBe('„Gruß“');
  });
});

describe('metaCharset (HTML’s prescan)', () => {
  const bytes = (text: string) => Buffer.from(text, 'latin1');

  test('when the first meta with a charset names a known one, then that is it; UTF-16 is UTF-8 and x-user-defined Windows-1252', () => {
    expect(metaCharset(bytes('<meta charset=x-nonsense><meta charset="koi8-r">'), known)).toBe('koi8-r');
    expect(metaCharset(bytes('<meta http-equiv=content-type content="text/html;charset=\'Shift_JIS\'">'), known)).toBe('Shift_JIS');
    expect(metaCharset(bytes('<meta charset="UTF-16LE">'), known)).toBe('utf-8');
    expect(metaCharset(bytes('<meta charset="x-user-defined">'), known)).toBe('windows-1252');
    expect(metaCharset(bytes('<meta charset="x-mac-ce">'), known)).toBe('maccenteuro');
  });

  test('when the meta is past the first 1024 bytes, inside a comment, or has no charset, then there is none', () => {
    expect(metaCharset(bytes(`${' '.repeat(1024)}<meta charset="koi8-r">`), known)).toBeUndefined();
    expect(metaCharset(bytes('<!-- <meta charset="koi8-r"> -->'), known)).toBeUndefined();
    expect(metaCharset(bytes('<!-- unclosed <meta charset="koi8-r">'), known)).toBeUndefined();
    expect(metaCharset(bytes('<meta http-equiv="refresh" content="0; charset=koi8-r"><metadata charset="koi8-r">'), known)).toBeUndefined();
  });
});

describe('encoded words in an unknown charset', () => {
  test('when a subject has an unknown-8bit encoded word of Latin-1 bytes, then it is read as Windows-1252', async () => {
    const parsed = await parseMessage(Buffer.from('From: a@sender.example\r\nSubject: =?unknown-8bit?Q?caf=E9?=\r\n\r\nx\r\n'));
    expect(parsed.subject).toBe('café');
    expect(parsed.headers.find((h) => h.name === 'Subject')?.value).toBe('café');
  });

  test('when such words hold UTF-8 (split across two words), or a name is in x-unknown, then they are read as the rule says', async () => {
    const raw = 'From: =?x-unknown?Q?Ren=E9?= <r@x.example>\r\nSubject: =?UNKNOWN-8BIT?B?Z3LD?= =?unknown-8bit?B?vMOfZQ==?=\r\n\r\nx\r\n';
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.subject).toBe('grüße');
    expect(parsed.from).toEqual({ address: 'r@x.example', name: 'René' });
  });
});
