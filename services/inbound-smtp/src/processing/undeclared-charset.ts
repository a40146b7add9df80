import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import { charsetName } from './charset-labels';
import { windows1252Text } from './header-bytes';

/**
 * The charset labels MimeParser gives a text/plain or text/html part whose text is in no charset
 * a decoder can honour: none declared, us-ascii (or ascii), or a label no decoder knows. Never
 * written by a sender (`x-` and a name of ours); read by undeclaredDecoder only.
 */
export const UNDECLARED_TEXT = 'x-mailroom-undeclared-text';
export const UNDECLARED_HTML = 'x-mailroom-undeclared-html';

/** A decoder of one charset to UTF-8, or undefined when no decoder knows the label. */
export type CharsetDecoder = (label: string) => NodeJS.ReadWriteStream | undefined;

/**
 * A body's bytes in no declared charset as text: UTF-8 when they are valid UTF-8, else
 * Windows-1252, the rule header-bytes applies to undeclared 8-bit headers (mailers from before
 * MIME, and many scripts since, write Latin-1 or Windows-1252 undeclared; WHATWG's and
 * Thunderbird's fallback). RFC 2045's us-ascii default would make every such byte U+FFFD. Unlike
 * a header, a body is not read as damaged UTF-8 when it merely has some UTF-8 characters: a long
 * Windows-1252 text holds byte pairs that are UTF-8 by chance (`ß“` is DF 93).
 */
export function undeclaredText(bytes: Buffer): string {
  return isUtf8(bytes) ? bytes.toString('utf8') : windows1252Text(bytes);
}

// HTML's prescan (WHATWG HTML §13.2.3.2, "prescan a byte stream to determine its encoding")
// looks at the first 1024 bytes: comments are skipped, and the first <meta> with a charset
// attribute, or with http-equiv="content-type" and a charset in its content, names the encoding
// when it is one. A simplification of its tokenizer: a `>` inside a quoted attribute value ends
// the tag here (no mailer writes one in a meta tag).
const PRESCAN_BYTES = 1024;
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const META = /<meta[\s/]([^>]*)/gi;
const ATTRIBUTE = /([^\s"'/>=][^\s/>=]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
const CONTENT_CHARSET = /charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"']+))/i;

/**
 * The charset the first <meta> in an HTML document's first 1024 bytes declares, as HTML's prescan
 * finds it (see above), among the labels `known` accepts; undefined when there is none. A UTF-16
 * label is UTF-8 and x-user-defined Windows-1252, as the prescan says (a document it could read
 * is not UTF-16).
 */
export function metaCharset(bytes: Buffer, known: (label: string) => boolean): string | undefined {
  const head = bytes.toString('latin1', 0, Math.min(bytes.length, PRESCAN_BYTES)).replace(COMMENT, '');
  for (const [, attributes = ''] of head.matchAll(META)) {
    const values = new Map<string, string>();
    for (const [, name = '', ...quoted] of attributes.matchAll(ATTRIBUTE)) {
      const key = name.toLowerCase();
      if (!values.has(key)) values.set(key, quoted.find((v) => v !== undefined) ?? '');
    }
    const content = values.get('http-equiv')?.toLowerCase() === 'content-type' ? CONTENT_CHARSET.exec(values.get('content') ?? '')?.slice(1).find((v) => v !== undefined) : undefined;
    const label = prescanLabel((values.get('charset') ?? content ?? '').trim());
    if (label !== '' && known(label)) return label;
  }
  return undefined;
}

function prescanLabel(label: string): string {
  const name = charsetName(label);
  if (/^utf-?16/i.test(name)) return 'utf-8';
  return name.toLowerCase() === 'x-user-defined' ? 'windows-1252' : name;
}

/**
 * The decoder of a part labelled UNDECLARED_TEXT or UNDECLARED_HTML: it holds the part's bytes
 * (mailparser holds the decoded text of a text part whole anyway) and, at their end, gives them
 * as UTF-8: HTML in the charset a <meta> declares (metaCharset) when `decoder` knows it, anything
 * else as undeclaredText reads it.
 */
export function undeclaredDecoder(html: boolean, decoder: CharsetDecoder): Transform {
  const chunks: Buffer[] = [];
  return new Transform({
    transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'binary') : chunk);
      done();
    },
    flush(done: TransformCallback) {
      const bytes = Buffer.concat(chunks);
      const declared = html ? metaCharset(bytes, (label) => decoder(label) !== undefined) : undefined;
      const stream = declared === undefined ? undefined : decoder(declared);
      if (stream === undefined) return done(null, Buffer.from(undeclaredText(bytes), 'utf8'));
      const decoded: Buffer[] = [];
      stream.on('data', (chunk: Buffer | string) => decoded.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk));
      stream.on('error', (err: Error) => done(err));
      stream.on('end', () => done(null, Buffer.concat(decoded)));
      stream.end(bytes);
    },
  });
}
