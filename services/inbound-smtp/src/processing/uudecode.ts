import { Transform, type TransformCallback } from 'node:stream';

/**
 * Content-Transfer-Encoding labels of uuencoded parts. RFC 2045 defines none, but Outlook
 * Express, Pegasus and scripts of the 1990s–2000s wrote `x-uuencode` (and the others), and
 * Python's email package and Thunderbird decode them: left encoded, an attachment would be
 * stored as `begin 644 …` text rather than the file the sender attached.
 */
const UUENCODE_LABELS = new Set(['x-uuencode', 'uuencode', 'x-uue', 'uue']);

export function isUuencodeLabel(encoding: string | false | undefined): boolean {
  return typeof encoding === 'string' && UUENCODE_LABELS.has(encoding.trim().toLowerCase());
}

// "begin <mode> <name>": where the encoded lines start.
const BEGIN = /^begin\s+[0-7]{1,4}(?:\s|$)/;

/**
 * The bytes a uuencoded body holds: the lines between `begin <mode> <name>` and the empty
 * line (a length of 0, written `` ` `` or a space) or `end`. A body with no `begin` line is not
 * uuencoded whatever its label says, and is kept as it is. Lenient as decoders are: each
 * line's length character says how many bytes it holds, characters stripped of trailing
 * spaces by a transport count as spaces (zero), and any character is read modulo 64.
 */
export function uudecode(body: Buffer): Buffer {
  const lines = body.toString('latin1').split(/\r?\n|\r/);
  const start = lines.findIndex((line) => BEGIN.test(line));
  if (start < 0) return body;
  const out: Buffer[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trimEnd() === 'end' || line === '') break;
    const length = sextet(line, 0);
    if (length === 0) break;
    const bytes = Buffer.alloc(Math.ceil(length / 3) * 3);
    for (let group = 0; group * 3 < length; group += 1) {
      const [a, b, c, d] = [1, 2, 3, 4].map((i) => sextet(line, group * 4 + i)) as [number, number, number, number];
      bytes[group * 3] = (a << 2) | (b >> 4);
      bytes[group * 3 + 1] = ((b & 0x0f) << 4) | (c >> 2);
      bytes[group * 3 + 2] = ((c & 0x03) << 6) | d;
    }
    out.push(bytes.subarray(0, length));
  }
  return Buffer.concat(out);
}

/** The 6-bit value of the character at `at` (a missing one is a stripped space: 0). */
function sextet(line: string, at: number): number {
  return at < line.length ? (line.charCodeAt(at) - 0x20) & 0x3f : 0;
}

/**
 * A part's decoder (as mailsplit's getDecoder gives one) for a uuencoded part: the body is
 * collected and decoded at its end, since `begin` may be preceded by any text. Parts are
 * already held whole in memory once read (see readMime), so this costs no more than that.
 */
export class UudecodeStream extends Transform {
  private readonly chunks: Buffer[] = [];

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.chunks.push(chunk);
    done();
  }

  override _flush(done: TransformCallback): void {
    this.push(uudecode(Buffer.concat(this.chunks)));
    done();
  }
}
