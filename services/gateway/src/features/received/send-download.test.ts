import { attachmentDisposition, safeContentType } from './send-download';

describe('attachmentDisposition', () => {
  test('when the name is plain ASCII, then both forms carry it unchanged', () => {
    expect(attachmentDisposition('report-2026.pdf')).toBe(`attachment; filename="report-2026.pdf"; filename*=UTF-8''report-2026.pdf`);
  });

  test("when the name has characters RFC 8187 does not allow bare, then they are percent-encoded, ' ( ) * included", () => {
    expect(attachmentDisposition("it's (1)*.txt")).toBe(`attachment; filename="it's (1)*.txt"; filename*=UTF-8''it%27s%20%281%29%2A.txt`);
  });

  test('when the name has CR/LF, a lone surrogate or is long, then the header stays one safe line', () => {
    const header = attachmentDisposition(`a\r\nSet-Cookie: x\ud800${'y'.repeat(400)}`);
    expect(header).not.toMatch(/[\r\n]/);
    expect(header).toContain('filename="a__Set-Cookie: x_yyy');
    expect(header).toContain("filename*=UTF-8''a__Set-Cookie%3A%20x%EF%BF%BDyyy");
    expect(header.match(/filename="([^"]*)"/)?.[1]).toHaveLength(150);
  });

  test('when the name holds path separators or control characters, then neither form carries them, encoded or not', () => {
    expect(attachmentDisposition('../../etc/passwd')).toBe(`attachment; filename=".._.._etc_passwd"; filename*=UTF-8''.._.._etc_passwd`);
    const header = attachmentDisposition('..\\win\\évil\u0000\u0085.txt');
    expect(header).toBe(`attachment; filename=".._win__vil__.txt"; filename*=UTF-8''.._win_%C3%A9vil__.txt`);
    expect(header).not.toMatch(/%2F|%5C|%00|%C2%85/i);
  });

  test('when the name holds a right-to-left override (exe shown as pdf), then the download name carries no bidirectional control', () => {
    expect(attachmentDisposition('invoice\u202Efdp.exe')).toBe(`attachment; filename="invoice_fdp.exe"; filename*=UTF-8''invoice_fdp.exe`);
    expect(attachmentDisposition('a\u2066b\u2069c\u202Ad.txt')).toBe(`attachment; filename="a_b_c_d.txt"; filename*=UTF-8''a_b_c_d.txt`);
    // Hebrew and Arabic names keep their letters.
    expect(attachmentDisposition('שלום.txt')).toBe(`attachment; filename="____.txt"; filename*=UTF-8''${encodeURIComponent('שלום')}.txt`);
  });

  test('when nothing printable is left for the fallback, then it is "attachment"', () => {
    expect(attachmentDisposition('日本語')).toBe(`attachment; filename="___"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E`);
    expect(attachmentDisposition('   ')).toBe(`attachment; filename="attachment"; filename*=UTF-8''%20%20%20`);
  });
});

describe('safeContentType', () => {
  test.each([
    ['image/PNG', 'image/png'],
    ['text/plain; charset=utf-8', 'text/plain'],
    ['application/vnd.ms-excel', 'application/vnd.ms-excel'],
    ['bogus', 'application/octet-stream'],
    ['text/html\r\nSet-Cookie: x=1', 'application/octet-stream'],
    ['', 'application/octet-stream'],
  ])('when the stored type is %j, then %s', (stored, served) => {
    expect(safeContentType(stored)).toBe(served);
  });
});
