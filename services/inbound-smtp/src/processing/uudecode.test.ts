import { isUuencodeLabel, uudecode } from './uudecode';

const encoded = (text: string) => Buffer.from(text.replace(/\n/g, '\r\n'), 'latin1');

describe('uuencoded parts (Content-Transfer-Encoding: x-uuencode)', () => {
  test('when a body is uuencoded, then the bytes between begin and end are decoded', () => {
    expect(uudecode(encoded("begin 644 hello.txt\n.:&5L;&\\L('=O<FQD(0H`\n`\nend\n")).toString('latin1')).toBe('hello, world!\n');
  });

  test('when trailing spaces were stripped in transit or text precedes begin, then it still decodes', () => {
    // "#0V%T" is "Cat"; '"87  ' is "ap", here with its two trailing spaces stripped.
    expect(uudecode(encoded('note first\nbegin 600 x\n#0V%T\n"87\n`\nend')).toString('latin1')).toBe('Catap');
  });

  test('when a body so labelled has no begin line, then it is kept as it is', () => {
    expect(uudecode(encoded('just text\n')).toString('latin1')).toBe('just text\r\n');
  });

  test('the labels of uuencode are recognised in any case, others not', () => {
    expect(['x-uuencode', 'X-UUENCODE', 'uuencode', 'x-uue'].map(isUuencodeLabel)).toEqual([true, true, true, true]);
    expect((['base64', '7bit', '', false] as const).map((label) => isUuencodeLabel(label))).toEqual([false, false, false, false]);
  });
});
