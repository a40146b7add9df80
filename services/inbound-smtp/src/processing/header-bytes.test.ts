import { hasNonUtf8Bytes, headerBytesText, withoutFoldsInCharacters } from './header-bytes';

const binary = (bytes: number[] | string) => Buffer.from(typeof bytes === 'string' ? bytes : Buffer.from(bytes)).toString('binary');

describe('undeclared 8-bit header bytes', () => {
  test('when they are UTF-8 (RFC 6532), then they are read as UTF-8', () => {
    expect(headerBytesText(binary('Zoë Çelik 日本'))).toBe('Zoë Çelik 日本');
    expect(hasNonUtf8Bytes(binary('Zoë'))).toBe(false);
    expect(hasNonUtf8Bytes('plain ascii')).toBe(false);
  });

  test('when they are not UTF-8, then they are read as Windows-1252, 0x80–0x9F included', () => {
    expect(headerBytesText(binary([0x43, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x20, 0x93, 0x78, 0x94, 0x20, 0x8a, 0x9f]))).toBe('Café € “x” ŠŸ');
    expect(hasNonUtf8Bytes(binary([0x43, 0x61, 0x66, 0xe9]))).toBe(true);
  });
});

describe('UTF-8 header bytes that are damaged', () => {
  test('when a UTF-8 field has a stray byte or a character cut short, then it is read as UTF-8 with U+FFFD for those bytes only', () => {
    expect(headerBytesText(binary([...Buffer.from('Zoë'), 0xff, ...Buffer.from(' Jörg'), 0xe2, 0x82]))).toBe('Zoë\uFFFD Jörg\uFFFD');
    expect(hasNonUtf8Bytes(binary([...Buffer.from('Zoë'), 0xff]))).toBe(true);
  });

  test('when a field has no UTF-8 character at all, then it is still read as Windows-1252', () => {
    expect(headerBytesText(binary([0x4a, 0xf6, 0x72, 0x67, 0x20, 0x93, 0x78, 0x94]))).toBe('Jörg “x”');
  });

  test('when a fold splits a UTF-8 character, then the fold and its white space are taken out, and no other fold', () => {
    const split = (text: string, at: number, fold: string) => {
      const bytes = Buffer.from(text);
      return Buffer.concat([bytes.subarray(0, at), Buffer.from(fold), bytes.subarray(at)]).toString('binary');
    };
    expect(withoutFoldsInCharacters(split('Subject: Grüße', 12, '\r\n '))).toBe(binary('Subject: Grüße'));
    expect(withoutFoldsInCharacters(split('Subject: 日本', 11, '\r\n\t'))).toBe(binary('Subject: 日本'));
    expect(withoutFoldsInCharacters(split('Subject: 😀!', 12, '\n  '))).toBe(binary('Subject: 😀!'));
    const between = binary('Subject: Grüße\r\n für Jörg\r\n 日本');
    expect(withoutFoldsInCharacters(between)).toBe(between);
  });
});
