import { charsetName, withKnownCharsets, withKnownParameterCharsets } from './charset-labels';
import { decodeWordsSafely } from './message-headers';

const encodedWord = (label: string, bytes: Buffer) => `=?${label}?B?${bytes.toString('base64')}?=`;
const range = (from: number, to: number) => Buffer.from(Array.from({ length: to - from + 1 }, (_, i) => from + i));

describe('charset labels', () => {
  // The Encoding Standard's labels that libmime and iconv-lite did not know, each with bytes the
  // encoding defines; Node's TextDecoder implements the standard and says what they mean.
  test.each([
    // 0xFF is left out: iconv-lite's table has ¤ there, the standard €.
    ['x-mac-cyrillic', range(0x80, 0xfe)],
    ['x-mac-ukrainian', range(0x80, 0xfe)],
    ['csiso88598i', range(0xe0, 0xfa)],
    ['logical', range(0xe0, 0xfa)],
    ['unicode20utf8', Buffer.from('Grüße ✓')],
    ['x-unicode20utf8', Buffer.from('Grüße ✓')],
    ['unicodefffe', Buffer.from([0x00, 0x47, 0x00, 0xfc, 0x27, 0x13])],
    ['csunicode', Buffer.from([0x47, 0x00, 0xfc, 0x00, 0x13, 0x27])],
    ['iso-10646-ucs-2', Buffer.from([0x47, 0x00, 0xfc, 0x00, 0x13, 0x27])],
    ['unicode', Buffer.from([0x47, 0x00, 0xfc, 0x00, 0x13, 0x27])],
    ['unicodefeff', Buffer.from([0x47, 0x00, 0xfc, 0x00, 0x13, 0x27])],
    ['csiso2022jp', Buffer.from('\u001b$B$3$s$K$A$O\u001b(B', 'latin1')],
  ])('when an encoded word is labelled %s (WHATWG), then it decodes as the Encoding Standard says', (label, bytes) => {
    const expected = new TextDecoder(label).decode(bytes);
    expect(expected).not.toContain('\uFFFD');
    expect(decodeWordsSafely(encodedWord(label, bytes))).toBe(expected);
  });

  // Microsoft's and Java's names, each with a text and its bytes in Apple's or Microsoft's table.
  test.each([
    ['x-mac-ce', 'Dzień dobry, Łódź', 'RHppZcQgZG9icnksIPyXZJA='],
    ['x-mac-greek', 'Καλημέρα', 'uuHs6O3b8uE='],
    ['x-mac-turkish', 'Günaydın, Şule', 'R59uYXlk3W4sIN51bGU='],
    ['x-mac-icelandic', 'Góðan dag, Þór', 'R5fdYW4gZGFnLCDel3I='],
    ['x-mac-croatian', 'Dobar dan, Đurđa', 'RG9iYXIgZGFuLCDQdXLwYQ=='],
    ['x-mac-romanian', 'Bună ziua, Ştefan', 'QnVuviB6aXVhLCCvdGVmYW4='],
    ['x-mac-thai', 'สวัสดี', 'ysfRyrTV'],
    ['x-big5', '你好嗎', 'p0Gmbrbc'],
    ['x-windows-950', '你好嗎', 'p0Gmbrbc'],
    ['x-windows-949', '안녕하세요, 똠방각하', 'vsiz58fPvLy/5CwgjGO55rCix88='],
  ])('when an encoded word is labelled %s, then it decodes in that code page', (label, text, base64) => {
    expect(decodeWordsSafely(encodedWord(label, Buffer.from(base64, 'base64')))).toBe(text);
  });

  test('when a label is written in another case or with spaces around it, then it is still known', () => {
    expect(charsetName(' X-Mac-CE ')).toBe('maccenteuro');
    expect(charsetName('KS_C_5601-1987')).toBe('KS_C_5601-1987');
    expect(charsetName('utf-8')).toBe('utf-8');
  });

  test('when a header value is relabelled, then only the charsets of its encoded words and RFC 2231 values change', () => {
    expect(withKnownCharsets('x-big5 =?x-big5?B?p0Gmbrbc?= =?utf-8?Q?a?= =?x-big5*zh?Q?=A7A?=')).toBe('x-big5 =?big5?B?p0Gmbrbc?= =?utf-8?Q?a?= =?big5*zh?Q?=A7A?=');
    expect(withKnownParameterCharsets(`attachment; filename*0*=x-mac-greek'el'%BA%E1; filename*1*=%EC; size=x-mac-greek`)).toBe(
      `attachment; filename*0*=macgreek'el'%BA%E1; filename*1*=%EC; size=x-mac-greek`,
    );
  });
});
