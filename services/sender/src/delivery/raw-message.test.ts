import { hasEightBitBytes } from './raw-message';

describe('hasEightBitBytes', () => {
  test('when every byte is US-ASCII, then it is false, for one Buffer and for parts', () => {
    expect(hasEightBitBytes(Buffer.from('Subject: x\r\n\r\nHello.\r\n'))).toBe(false);
    expect(hasEightBitBytes([Buffer.from('a\r\n'), Buffer.alloc(0), Buffer.from('\x7f\r\n', 'latin1')])).toBe(false);
  });

  test('when one byte is 0x80 or above, in any part, then it is true', () => {
    expect(hasEightBitBytes(Buffer.from('Grüße\r\n'))).toBe(true);
    expect(hasEightBitBytes([Buffer.from('a\r\n'), Buffer.from([0x61, 0x80])])).toBe(true);
  });
});
