import { terminalFilename } from './attachment-filename';

describe('attachment filenames (RFC 2183 §2.3: a terminal component only)', () => {
  test('when a filename carries a Windows or Unix path, then only its last component is kept', () => {
    expect(terminalFilename('C:\\Users\\ada\\Desktop\\report.pdf')).toBe('report.pdf');
    expect(terminalFilename('../../etc/passwd')).toBe('passwd');
    expect(terminalFilename('a/b\\c.txt')).toBe('c.txt');
  });

  test('when a filename has no path, then it is kept as written, dots and spaces included', () => {
    expect(terminalFilename('  Größe .tar.gz')).toBe('  Größe .tar.gz');
    expect(terminalFilename('..hidden')).toBe('..hidden');
  });

  test('when a filename is only a path, then there is no filename', () => {
    expect(['dir/', '..', '../..', '.', ' \\ '].map(terminalFilename)).toEqual([null, null, null, null, null]);
  });

  test('when a filename holds control characters (a decoded line feed, a tab, NUL), then each run is one space', () => {
    expect(terminalFilename('Kontoutskrift for 1506.14.90466\nBedriftskonto.pdf')).toBe('Kontoutskrift for 1506.14.90466 Bedriftskonto.pdf');
    expect(terminalFilename('a\r\n\tb\u0000.txt')).toBe('a b .txt');
    expect(terminalFilename('x\u0085y\u007f.txt')).toBe('x y .txt');
  });
});
