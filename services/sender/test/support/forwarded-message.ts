/*
 * The 8-bit message the downgrade to 7 bits (RFC 6152 §3) is tested with, in the unit test and
 * against aiosmtpd: a message forwarded as a mail client forwards one.
 */

/** CRLF-joined lines, as bytes (UTF-8). */
export const crlf = (lines: string[]): Buffer => Buffer.from(lines.join('\r\n'), 'utf8');

/** Mostly ASCII, with a line starting with a dot and trailing white space: quoted-printable must keep each. */
export const GERMAN = 'Grüße aus Köln — schöne Straße.\r\n.a line with a leading dot\r\ntrailing space \r\n';
/** Mostly non-ASCII: base64. */
export const JAPANESE = '日本語のテキスト。'.repeat(20);
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
/** The outer message's own text part (8bit). */
export const OUTER_TEXT = 'Siehe Anhang — grüß dich, Jörg.';

/**
 * A forwarded message in UTF-8, as a mail client saves it (.eml): its header fields 7-bit, a
 * text part declared 8bit, an HTML part with no Content-Transfer-Encoding field at all (8-bit all
 * the same), and a 7-bit calendar part.
 */
export const FORWARDED = crlf([
  'From: =?UTF-8?Q?J=C3=B6rg?= <joerg@example.org>',
  'To: hello@acme.test',
  'Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=',
  'MIME-Version: 1.0',
  'Content-Type: multipart/alternative; boundary="inner"',
  '',
  '--inner',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: 8bit',
  '',
  GERMAN,
  '--inner',
  'Content-Type: text/html; charset=utf-8',
  '',
  `<p>${JAPANESE}</p>`,
  '--inner',
  'Content-Type: text/calendar; charset=us-ascii',
  '',
  'BEGIN:VCALENDAR',
  'END:VCALENDAR',
  '--inner--',
  '',
]);

/**
 * A message forwarding `forwarded`: a preamble, an 8bit text part, an image (base64), the
 * message (message/rfc822, 8bit, as forwarded.eml) and an epilogue.
 */
export function withForwarded(forwarded: Buffer): Buffer {
  return Buffer.concat([
    crlf([
      'From: Acme <hello@acme.test>',
      'To: x@example.test',
      'Subject: Fwd: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=',
      'Message-ID: <fwd-1@acme.test>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="outer"',
      '',
      'This is a multi-part message in MIME format.',
      '--outer',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      OUTER_TEXT,
      '--outer',
      'Content-Type: image/png; name=dot.png',
      'Content-Transfer-Encoding: base64',
      'Content-Disposition: attachment; filename=dot.png',
      '',
      PNG.toString('base64'),
      '--outer',
      'Content-Type: message/rfc822',
      'Content-Transfer-Encoding: 8bit',
      'Content-Disposition: attachment; filename=forwarded.eml',
      '',
      '',
    ]),
    forwarded,
    crlf(['', '--outer--', 'the epilogue', '']),
  ]);
}

/** The message both tests deliver or downgrade. */
export const FORWARDING_MESSAGE = withForwarded(FORWARDED);
