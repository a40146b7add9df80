/// <reference path="./untyped-modules.d.ts" />
import libmime from 'libmime';
import { parseMessage } from './parse-message';
import { hasLiteralSection, withLiteralSectionsEncoded } from './parameter-sections';

const filename = (value: string) => libmime.parseHeaderValue(withLiteralSectionsEncoded(value)).params.filename;

describe('RFC 2231 parameter sections (§4.1: only `*N*=` sections are percent-encoded)', () => {
  test('when a section after an encoded first one is literal, then its % signs stay as written', () => {
    const value = `attachment; filename*0*=utf-8''50%25; filename*1="%20off.txt"`;
    expect(hasLiteralSection(value)).toBe(true);
    expect(filename(value)).toBe('50%%20off.txt');
    expect(filename(`attachment; filename*0*=utf-8''%C3%BC; filename*1="ber 100%.txt"; size=3`)).toBe('über 100%.txt');
    expect(filename(`attachment; FILENAME*0*=utf-8''a; filename*1=_%41_;x=1`)).toBe('a_%41_');
  });

  test('when every section is encoded, or none is, then nothing is rewritten', () => {
    for (const value of [
      `attachment; filename*0*=utf-8''%E2%82%AC; filename*1*=%20a.txt`,
      `attachment; filename*0="50%"; filename*1="%20off.txt"`,
      `attachment; filename="a.txt"; name*1="x"`,
    ]) {
      expect(hasLiteralSection(value)).toBe(false);
      expect(withLiteralSectionsEncoded(value)).toBe(value);
    }
  });

  test('when such a filename arrives, then the attachment is named as RFC 2231 says', async () => {
    const raw = Buffer.from(
      'Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b\r\n' +
        `Content-Type: application/octet-stream\r\nContent-Disposition: attachment; filename*0*=utf-8''50%25;\r\n filename*1="%20off.bin"\r\n\r\ny\r\n--b--\r\n`,
    );
    expect((await parseMessage(raw)).attachments.map((a) => a.filename)).toEqual(['50%%20off.bin']);
  });
});
