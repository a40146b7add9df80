import { type CompareBoundary, withTransportPadding } from './transport-padding';

// mailsplit's rule, as strict as it is: "--" boundary, then CRLF (1) or "--" CRLF (2).
const strict: CompareBoundary = (line, start, boundary) => {
  const text = line.subarray(start).toString('latin1');
  const b = boundary.toString('latin1');
  if (/^\r?\n?$/.test(text.replace(`--${b}`, '')) && text.startsWith(`--${b}`)) return 1;
  if (text.startsWith(`--${b}--`) && /^\r?\n?$/.test(text.slice(b.length + 4))) return 2;
  return false;
};
const compare = withTransportPadding(strict);
const b = Buffer.from('=_a b c');
const line = (text: string) => Buffer.from(text, 'latin1');

describe('delimiter lines with transport padding (RFC 2046 §5.1.1)', () => {
  test('when a delimiter or close delimiter has spaces and tabs before its line end, then it is one', () => {
    expect(compare(line('--=_a b c  \t\r\n'), 0, b)).toBe(1);
    expect(compare(line('--=_a b c-- \n'), 0, b)).toBe(2);
    expect(compare(line('\r\n--=_a b c\t\r\n'), 2, b)).toBe(1);
  });

  test('when a line only starts like the boundary, then padding makes no delimiter of it', () => {
    expect(compare(line('--=_a b cd \r\n'), 0, b)).toBe(false);
    expect(compare(line('--=_a b \r\n'), 0, b)).toBe(false);
    expect(compare(line('-- \r\n'), 0, b)).toBe(false);
  });
});
