import { isAscii } from 'node:buffer';
import { crlf, FORWARDING_MESSAGE, GERMAN, JAPANESE, OUTER_TEXT } from '../../test/support/forwarded-message';
import { CannotDowngradeError, downgradeTo7Bit } from './downgrade-to-7bit';

const joined = async (raw: Buffer) => Buffer.concat(await downgradeTo7Bit(raw));

/** Quoted-printable decoding (RFC 2045 §6.7): soft line breaks dropped, =XX as its byte. */
function qpDecode(text: string): Buffer {
  const bytes = text.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1');
}

/** The part of `raw` from `marker` up to its next CRLF CRLF, and the body after it up to the next `--`-delimiter line. */
function partAfter(raw: Buffer, marker: string): { header: string; body: string } {
  const text = raw.toString('latin1');
  const at = text.indexOf(marker);
  const bodyStart = text.indexOf('\r\n\r\n', at) + 4;
  const bodyEnd = text.indexOf('\r\n--', bodyStart);
  return { header: text.slice(at, bodyStart - 4), body: text.slice(bodyStart, bodyEnd) };
}

const MESSAGE = FORWARDING_MESSAGE;

describe('downgradeTo7Bit', () => {
  test('when every byte is 7-bit, then the copy is the message, byte for byte', async () => {
    const raw = crlf(['From: a@acme.test', 'MIME-Version: 1.0', '', 'Hello.', '']);
    expect((await joined(raw)).equals(raw)).toBe(true);
  });

  test('when a message has an 8bit text part and a forwarded message/rfc822 with 8bit parts, then the copy is 7-bit, each 8-bit leaf re-encoded, composites 7bit, and everything else byte for byte', async () => {
    const copy = await joined(MESSAGE);
    const text = copy.toString('latin1');

    expect(isAscii(copy)).toBe(true);
    // The header section, preamble, the PNG part, the epilogue and the forwarded message's header section as written.
    const original = MESSAGE.toString('latin1');
    const kept = (from: string, to: string) => original.slice(original.indexOf(from), original.indexOf(to, original.indexOf(from) + from.length));
    expect(text.startsWith(kept('From: Acme', '--outer\r\nContent-Type: text/plain'))).toBe(true);
    expect(text).toContain(kept('--outer\r\nContent-Type: image/png', '--outer\r\nContent-Type: message/rfc822'));
    expect(text).toContain(kept('From: =?UTF-8?Q?J', '--inner\r\n'));
    expect(text.endsWith('\r\n--outer--\r\nthe epilogue\r\n')).toBe(true);
    // Each composite's own encoding becomes 7bit; each 8-bit leaf is encoded and decodes to its bytes.
    expect(partAfter(copy, 'Content-Type: message/rfc822').header).toBe('Content-Type: message/rfc822\r\nContent-Transfer-Encoding: 7bit\r\nContent-Disposition: attachment; filename=forwarded.eml');
    const outerText = partAfter(copy, 'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nSiehe');
    expect(qpDecode(outerText.body).toString('utf8')).toBe(OUTER_TEXT);
    const german = partAfter(copy, 'Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nGr');
    expect(qpDecode(german.body).toString('utf8')).toBe(GERMAN);
    // Mostly non-ASCII text goes base64, its field appended after the part's own.
    const html = partAfter(copy, 'Content-Type: text/html');
    expect(html.header).toBe('Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64');
    expect(Buffer.from(html.body, 'base64').toString('utf8')).toBe(`<p>${JAPANESE}</p>`);
    expect(text).not.toMatch(/^Content-Transfer-Encoding: 8bit/im);
  });

  test('when a text part has bare CRs and LFs and trailing white space, then quoted-printable keeps each as data and decodes to the exact bytes', async () => {
    const body = 'Zürich\rcr only\nlf only\r\ntab\t\r\nend ';
    const raw = Buffer.concat([crlf(['MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', '', '']), Buffer.from(body)]);
    const copy = (await joined(raw)).toString('latin1');
    const encoded = copy.slice(copy.indexOf('\r\n\r\n') + 4);

    expect(copy).toContain('Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n');
    expect(encoded).toContain('=0D');
    expect(encoded).toContain('=0A');
    expect(encoded.split('\r\n').every((line) => line.length <= 76)).toBe(true);
    expect(qpDecode(encoded).equals(Buffer.from(body))).toBe(true);
  });

  test('when a binary part is not text, then it becomes base64 and decodes to the exact bytes', async () => {
    const bytes = Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 37) % 256));
    const raw = Buffer.concat([
      crlf(['MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary=b', '', '--b', 'Content-Type: application/octet-stream', 'Content-Transfer-Encoding: binary', '', '']),
      bytes,
      crlf(['', '--b--', '']),
    ]);
    const part = partAfter(await joined(raw), 'Content-Type: application/octet-stream');

    expect(part.header).toBe('Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64');
    expect(Buffer.from(part.body, 'base64').equals(bytes)).toBe(true);
  });

  test('when a body part has no header section, then it gets a Content-Transfer-Encoding field and nothing else', async () => {
    const raw = crlf(['MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary=b', '', '--b', '', 'naïve café text', '--b--', '']);
    const copy = (await joined(raw)).toString('latin1');

    expect(copy).toBe(['MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary=b', '', '--b', 'Content-Transfer-Encoding: quoted-printable', '', 'na=C3=AFve caf=C3=A9 text', '--b--', ''].join('\r\n'));
  });

  test('when a part of a multipart/digest has no Content-Type, then it is a message/rfc822 and is followed into (RFC 2046 §5.1.5)', async () => {
    const raw = crlf(['MIME-Version: 1.0', 'Content-Type: multipart/digest; boundary=d', '', '--d', '', 'MIME-Version: 1.0', 'Subject: one', '', 'Grüße aus Köln', '--d--', '']);
    const copy = (await joined(raw)).toString('latin1');

    expect(copy).toContain('--d\r\n\r\nMIME-Version: 1.0\r\nSubject: one\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nGr=C3=BC=C3=9Fe aus K=C3=B6ln\r\n--d--');
  });

  test('when a line starts with the boundary but goes on, then it is content, not a delimiter', async () => {
    const raw = crlf(['MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary=b', '', '--b', 'Content-Type: text/plain', '', '--bé is content', '--b--', '']);
    const copy = (await joined(raw)).toString('latin1');

    expect(copy).toContain('Content-Transfer-Encoding: quoted-printable\r\n\r\n--b=C3=A9 is content\r\n--b--');
  });

  test('when a message/global part has UTF-8 header fields, then it is encoded whole and decodes to the exact message (RFC 6532 §3.7)', async () => {
    const inner = crlf(['From: Jörg <jörg@example.org>', 'Subject: Grüße', 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', 'Hallo Jörg, wie geht es dir heute?', '']);
    const raw = Buffer.concat([crlf(['MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary=b', '', '--b', 'Content-Type: message/global', '', '']), inner, crlf(['--b--', ''])]);
    const part = partAfter(await joined(raw), 'Content-Type: message/global');

    expect(part.header).toBe('Content-Type: message/global\r\nContent-Transfer-Encoding: quoted-printable');
    expect(qpDecode(part.body).equals(inner.subarray(0, -2))).toBe(true);
  });

  test.each<[string, Buffer, RegExp]>([
    ['8-bit bytes in the top header section', crlf(['Subject: Grüße', 'MIME-Version: 1.0', '', 'x', '']), /header field has 8-bit bytes/],
    ['8-bit bytes in a forwarded message’s header section', Buffer.concat([crlf(['MIME-Version: 1.0', 'Content-Type: message/rfc822', '', 'Subject: Grüße', 'MIME-Version: 1.0', '', 'x', ''])]), /header field has 8-bit bytes/],
    ['8-bit bytes in a preamble', crlf(['MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary=b', '', 'Präambel', '--b', '', 'x', '--b--', '']), /preamble or epilogue/],
    ['a multipart without its closing delimiter', crlf(['MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary=b', '', '--b', '', 'Grüße', '']), /no closing delimiter/],
    ['a multipart without a boundary', crlf(['MIME-Version: 1.0', 'Content-Type: multipart/mixed', '', 'Grüße', '']), /has no boundary/],
    ['a part declared base64 with 8-bit bytes', crlf(['MIME-Version: 1.0', 'Content-Type: text/plain', 'Content-Transfer-Encoding: base64', '', 'Grüße', '']), /declared base64 has 8-bit bytes/],
    ['a multipart declared quoted-printable', crlf(['MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary=b', 'Content-Transfer-Encoding: quoted-printable', '', '--b', '', 'Grüße', '--b--', '']), /RFC 2045 §6.4/],
    ['two Content-Transfer-Encoding fields', crlf(['MIME-Version: 1.0', 'Content-Transfer-Encoding: 8bit', 'Content-Transfer-Encoding: 7bit', '', 'Grüße', '']), /2 content-transfer-encoding fields/],
    ['a message/partial with 8-bit bytes', crlf(['MIME-Version: 1.0', 'Content-Type: message/partial; id=x; number=1', '', 'Grüße', '']), /may not be encoded/],
    ['a forwarded message without MIME-Version', crlf(['MIME-Version: 1.0', 'Content-Type: message/rfc822', '', 'Subject: old', '', 'Grüße', '']), /without MIME-Version/],
    ['a header section with no end', crlf(['MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary=b', '', '--b', 'Content-Type: text/plain', 'X: Grüße', '--b--', '']), /header field has 8-bit bytes|no end to its header section/],
    [
      'parts nested deeper than 32',
      crlf([...Array.from({ length: 40 }, () => 'MIME-Version: 1.0\r\nContent-Type: message/rfc822\r\n'), 'MIME-Version: 1.0', '', 'Grüße', '']),
      /nested deeper than 32/,
    ],
  ])('when there is %s, then it cannot be downgraded', async (_what, raw, reason) => {
    const attempt = downgradeTo7Bit(raw);
    await expect(attempt).rejects.toBeInstanceOf(CannotDowngradeError);
    await expect(attempt).rejects.toMatchObject({ code: 'ECANNOTDOWNGRADE' });
    await expect(attempt).rejects.toThrow(reason);
  });
});
