import { hasNonUtf8Bytes, headerBytesText } from './header-bytes';

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
