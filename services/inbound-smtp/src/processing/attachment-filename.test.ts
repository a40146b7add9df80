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
});
