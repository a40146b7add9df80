// Pathological messages for the hostile-input tests: each builder takes a size `n` (how many
// levels, parts, headers, … as its name says) and returns the raw message. The tests use the
// sizes the brief names; a scratch timing loop can grow `n` to spot super-linear behaviour.

const CRLF = '\r\n';

const head = (extra: string[] = [], subject = 'hostile') =>
  ['From: Mallory <mallory@evil.test>', 'To: inbox@acme.test', `Subject: ${subject}`, 'Message-ID: <hostile@evil.test>', 'Date: Mon, 1 Jan 2024 00:00:00 +0000', 'MIME-Version: 1.0', ...extra].join(CRLF);

const message = (headers: string, body: string) => Buffer.from(`${headers}${CRLF}${CRLF}${body}`, 'latin1');

/** `n` multiparts each holding the next, a text part at the bottom. */
export function nestedMultiparts(n: number): Buffer {
  let open = '';
  let close = '';
  for (let i = 0; i < n; i++) {
    open += `--b${i}${CRLF}Content-Type: multipart/mixed; boundary="b${i + 1}"${CRLF}${CRLF}`;
    close = `${CRLF}--b${i}--${CRLF}${close}`;
  }
  const body = `${open}--b${n}${CRLF}Content-Type: text/plain${CRLF}${CRLF}deep${CRLF}--b${n}--${close}`;
  return message(head(['Content-Type: multipart/mixed; boundary="b0"']), body);
}

/** One multipart with `n` one-byte text parts. */
export function manyParts(n: number): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`--p${CRLF}Content-Type: application/octet-stream${CRLF}${CRLF}x`);
  return message(head(['Content-Type: multipart/mixed; boundary="p"']), `${parts.join(CRLF)}${CRLF}--p--${CRLF}`);
}

/** One header line of `n` bytes (no folding). */
export function longHeaderLine(n: number): Buffer {
  return message(head([`X-Long: ${'a'.repeat(n)}`]), 'body');
}

/** `n` headers. */
export function manyHeaders(n: number): Buffer {
  const extra: string[] = [];
  for (let i = 0; i < n; i++) extra.push(`X-H${i}: v${i}`);
  return message(head(extra), 'body');
}

/** A Subject of `n` encoded words. */
export function encodedWordSubject(n: number): Buffer {
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(i % 2 ? '=?UTF-8?B?w6k=?=' : '=?ISO-8859-1?Q?=E9t=E9?=');
  return message(head([], words.join(`${CRLF} `)), 'body');
}

/** Quoted-printable text of `n` soft line breaks in a row. */
export function softLineBreaks(n: number): Buffer {
  return message(head(['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: quoted-printable']), `${'=\r\n'.repeat(n)}end${CRLF}`);
}

/** An attachment of about `n` base64 characters, with garbage and whitespace after each. */
export function noisyBase64(n: number): Buffer {
  const clean = Buffer.alloc(Math.ceil((n * 3) / 4), 7).toString('base64').slice(0, n);
  let noisy = '';
  for (const ch of clean) noisy += `${ch} !`;
  return message(head(['Content-Type: application/octet-stream', 'Content-Transfer-Encoding: base64']), noisy);
}

/** An outer boundary that is a prefix of the inner one, `n` parts each. */
export function prefixBoundaries(n: number): Buffer {
  const inner: string[] = [];
  for (let i = 0; i < n; i++) inner.push(`--ab${CRLF}Content-Type: text/plain${CRLF}${CRLF}inner ${i}`);
  const body = `--a${CRLF}Content-Type: multipart/alternative; boundary="ab"${CRLF}${CRLF}${inner.join(CRLF)}${CRLF}--ab--${CRLF}--a${CRLF}Content-Type: text/plain${CRLF}${CRLF}outer${CRLF}--a--${CRLF}`;
  return message(head(['Content-Type: multipart/mixed; boundary="a"']), body);
}

/** `n` nested multiparts none of which is closed. */
export function unclosedBoundaries(n: number): Buffer {
  let body = '';
  for (let i = 0; i < n; i++) body += `--u${i}${CRLF}Content-Type: multipart/mixed; boundary="u${i + 1}"${CRLF}${CRLF}`;
  body += `--u${n}${CRLF}Content-Type: text/plain${CRLF}${CRLF}never closed${CRLF}`;
  return message(head(['Content-Type: multipart/mixed; boundary="u0"']), body);
}

/** A multipart of `n` boundary lines and nothing between them. */
export function emptyBoundaries(n: number): Buffer {
  return message(head(['Content-Type: multipart/mixed; boundary="e"']), `${`--e${CRLF}`.repeat(n)}--e--${CRLF}`);
}

/** A To of `n` addresses, and a Cc of the same. */
export function manyAddresses(n: number): Buffer {
  const list: string[] = [];
  for (let i = 0; i < n; i++) list.push(`"User ${i}" <u${i}@acme.test>`);
  const value = list.join(`,${CRLF} `);
  return message(head([`Cc: ${value}`]).replace('To: inbox@acme.test', `To: ${value}`), 'body');
}

/** A To of `n` nested groups and an address wrapped in `n` nested comments. */
export function nestedGroupsAndComments(n: number): Buffer {
  const groups = `${'g:'.repeat(n)}x@acme.test${';'.repeat(n)}`;
  const comments = `${'('.repeat(n)}c${')'.repeat(n)} y@acme.test`;
  return message(head([`Cc: ${comments}`]).replace('To: inbox@acme.test', `To: ${groups}`), 'body');
}

/** An HTML-only body of `n` nested divs. */
export function nestedDivs(n: number): Buffer {
  return message(head(['Content-Type: text/html; charset=utf-8']), `<html><body>${'<div>'.repeat(n)}deep${'</div>'.repeat(n)}</body></html>`);
}

/** A text body of `n` characters and no line break. */
export function oneLineText(n: number): Buffer {
  return message(head(['Content-Type: text/plain; charset=utf-8']), 'x'.repeat(n));
}

/** A text body of `n` quote lines. */
export function quoteLines(n: number): Buffer {
  return message(head(['Content-Type: text/plain; charset=utf-8']), `reply${CRLF}${'> quoted\r\n'.repeat(n)}`);
}

/** `n` message/rfc822 parts, each inside the last. */
export function nestedRfc822(n: number): Buffer {
  let inner = `From: a@b.test${CRLF}Subject: bottom${CRLF}${CRLF}bottom${CRLF}`;
  for (let i = 0; i < n; i++) {
    inner = `From: a@b.test${CRLF}Subject: level ${i}${CRLF}Content-Type: message/rfc822${CRLF}${CRLF}${inner}`;
  }
  return message(head(['Content-Type: message/rfc822']), inner);
}

/** A DKIM-Signature with `n` signed header names. */
export function longDkimHeaderList(n: number): Buffer {
  const names = Array.from({ length: n }, (_, i) => `x-h${i}`).join(':');
  return message(head([`DKIM-Signature: v=1; a=rsa-sha256; d=evil.test; s=s1; c=relaxed/relaxed; h=from:${names}; bh=AAAA; b=AAAA`]), 'body');
}

/** `n` DKIM-Signature headers, each from its own domain. */
export function manyDkimSignatures(n: number): Buffer {
  const sigs: string[] = [];
  for (let i = 0; i < n; i++) sigs.push(`DKIM-Signature: v=1; a=rsa-sha256; d=d${i}.evil.test; s=s1; c=relaxed/relaxed; h=from:to:subject; bh=AAAA; b=AAAA`);
  return message(head(sigs), 'body');
}

/** `n` Received headers. */
export function receivedChain(n: number): Buffer {
  const received: string[] = [];
  for (let i = 0; i < n; i++) received.push(`Received: from h${i}.evil.test (h${i}.evil.test [192.0.2.${i % 250}]) by mx.evil.test with ESMTP id ${i}; Mon, 1 Jan 2024 00:00:00 +0000`);
  return Buffer.concat([Buffer.from(`${received.join(CRLF)}${CRLF}`), message(head(), 'body')]);
}

/** A DSN for `n` recipients: `n` per-recipient blocks in its message/delivery-status part. */
export function dsnManyRecipients(n: number): Buffer {
  const blocks: string[] = [];
  for (let i = 0; i < n; i++) blocks.push(`Final-Recipient: rfc822; u${i}@acme.test${CRLF}Action: failed${CRLF}Status: 5.1.1${CRLF}Diagnostic-Code: smtp; 550 5.1.1 user unknown`);
  const body = [
    `--r${CRLF}Content-Type: text/plain${CRLF}${CRLF}Delivery failed.`,
    `--r${CRLF}Content-Type: message/delivery-status${CRLF}${CRLF}Reporting-MTA: dns; mx.acme.test${CRLF}${CRLF}${blocks.join(`${CRLF}${CRLF}`)}`,
    `--r--${CRLF}`,
  ].join(CRLF);
  return message(
    ['From: MAILER-DAEMON@acme.test', 'To: bounces@mailroom.test', 'Subject: Undelivered Mail', 'MIME-Version: 1.0', 'Content-Type: multipart/report; report-type=delivery-status; boundary="r"'].join(CRLF),
    body,
  );
}

/** A plain-text bounce of `n` diagnostic lines. */
export function textBounceLines(n: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(`<u${i}@acme.test>: host mx.acme.test said: 550 5.1.1 user unknown (in reply to RCPT TO command)`);
  return message(['From: MAILER-DAEMON@acme.test', 'To: bounces@mailroom.test', 'Subject: Undelivered Mail Returned to Sender'].join(CRLF), `This is the mail system.${CRLF}${CRLF}${lines.join(CRLF)}`);
}

export interface HostileCase {
  name: string;
  build: (n: number) => Buffer;
  /** The size the brief asks to survive. */
  n: number;
}

/** Every case, with the size the tests use. */
export const HOSTILE_CASES: HostileCase[] = [
  { name: 'nested multiparts', build: nestedMultiparts, n: 1_000 },
  { name: 'many tiny parts', build: manyParts, n: 50_000 },
  { name: 'a 10 MB header line', build: longHeaderLine, n: 10 * 1024 * 1024 },
  { name: 'many headers', build: manyHeaders, n: 100_000 },
  { name: 'encoded words in a Subject', build: encodedWordSubject, n: 5_000 },
  { name: 'soft line breaks', build: softLineBreaks, n: 1_000_000 },
  { name: 'noisy base64', build: noisyBase64, n: 1_000_000 },
  { name: 'prefix boundaries', build: prefixBoundaries, n: 1_000 },
  { name: 'unclosed boundaries', build: unclosedBoundaries, n: 1_000 },
  { name: 'empty boundaries', build: emptyBoundaries, n: 10_000 },
  { name: 'many addresses', build: manyAddresses, n: 100_000 },
  { name: 'nested groups and comments', build: nestedGroupsAndComments, n: 10_000 },
  { name: 'nested divs', build: nestedDivs, n: 500_000 },
  { name: 'one-line text', build: oneLineText, n: 5 * 1024 * 1024 },
  { name: 'quote lines', build: quoteLines, n: 100_000 },
  { name: 'nested rfc822', build: nestedRfc822, n: 100 },
  { name: 'long DKIM h=', build: longDkimHeaderList, n: 10_000 },
  { name: 'many DKIM signatures', build: manyDkimSignatures, n: 100 },
  { name: 'Received chain', build: receivedChain, n: 10_000 },
  { name: 'DSN recipients', build: dsnManyRecipients, n: 10_000 },
  { name: 'text bounce lines', build: textBounceLines, n: 20_000 },
];
