import { decodeFlowed } from './flowed-text';

describe('format=flowed text (RFC 3676)', () => {
  test('when quoted lines of one depth are flowed, then they join under one quote mark (§4.5)', () => {
    expect(decodeFlowed('> a \n> b', false)).toBe('> a b');
    expect(decodeFlowed('>> a \n>> b \n>> c', false)).toBe('>> a b c');
  });

  test('when a flowed line is followed by a line of another depth, then it ends its paragraph (§4.5)', () => {
    expect(decodeFlowed('> a \n>> b\n> c \nd', false)).toBe('> a \n>> b\n> c \nd');
  });

  test('when DelSp is yes, then the space before a soft break is deleted, and with no it is kept (§4.1)', () => {
    expect(decodeFlowed('ab \ncd\n十時に \n伺います', true)).toBe('abcd\n十時に伺います');
    expect(decodeFlowed('ab \ncd', false)).toBe('ab cd');
  });

  test('when a line is space-stuffed, quoted or not, then one space is removed (§4.4)', () => {
    expect(decodeFlowed(' From here\n  two\n>  quoted indent\n>> >not a third level', false)).toBe('From here\n two\n>  quoted indent\n>> >not a third level');
  });

  test('when a quoted line is empty, with or without its stuffing space, then it is the quote marks alone', () => {
    expect(decodeFlowed('> a\n>\n> \n>>\n> b', true)).toBe('> a\n>\n>\n>>\n> b');
  });

  test('when a signature separator follows a flowed line or precedes one, then it is joined to neither and keeps its space (§4.3)', () => {
    expect(decodeFlowed('Regards \n-- \nAda \nLovelace', false)).toBe('Regards \n-- \nAda Lovelace');
    expect(decodeFlowed('Regards \n-- \nAda', true)).toBe('Regards\n-- \nAda');
    expect(decodeFlowed('> Bob \n> -- \n> Bob Smith', false)).toBe('> Bob \n> -- \n> Bob Smith');
  });

  test('when the last line ends with a line break, then the break is dropped (as mailparser did), and only that one', () => {
    expect(decodeFlowed('a \nb\n', false)).toBe('a b');
    expect(decodeFlowed('a \nb', false)).toBe('a b');
    expect(decodeFlowed('a\n\n', false)).toBe('a\n');
    expect(decodeFlowed('', false)).toBe('');
  });

  test('when a body is long (hostile: 200,000 soft-wrapped lines), then it decodes in linear time', () => {
    const lines = 200_000;
    const started = performance.now();
    const decoded = decodeFlowed('> word \n'.repeat(lines), false);
    expect(decoded).toBe(`> ${'word '.repeat(lines)}`);
    // Linear: well under a second on a slow machine; quadratic joining would take minutes.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
