// RFC 3676 format=flowed, as Thunderbird and Apple Mail send text/plain by default. mailparser
// (libmime's decodeFlowed) joins a flowed line with whatever follows and keeps the quote marks
// inside the joined text ("> a > b"), and joins a quoted line with the unquoted answer below it.

const SIGNATURE_SEPARATOR = '-- ';
const GT = 0x3e;
const SPACE = 0x20;

/**
 * Decodes the text of a `text/plain; format=flowed` part (lines ended by `\n`) as RFC 3676 §4
 * says: each line's quote depth is its run of leading `>` (§4.5); after them one space is
 * space-stuffing and is removed (§4.4); a line ending in a space is flowed (§4.1), unless it is
 * a signature separator `-- `, which is joined to no line before or after it (§4.3); with
 * DelSp=yes the flowed line's last space is deleted (§4.1); a flowed line joins the next only
 * when both have the same quote depth, otherwise it ends its paragraph (§4.5). Each paragraph
 * is written with its quote marks once, then a space, then its text (`>` alone when empty).
 * The line break ending the last line is not kept. Linear in the text's length.
 */
export function decodeFlowed(text: string, delSp: boolean): string {
  const out: string[] = [];
  let paragraph = '';
  // The open paragraph's quote depth; -1 when none is open.
  let depth = -1;
  // The line break that ends the last line is dropped, as mailparser's own decoder does.
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  // Lines are found with indexOf rather than split: a 25 MB body can hold millions of them.
  for (let at = 0; ; ) {
    const next = text.indexOf('\n', at);
    const lf = next < 0 || next > end ? end : next;
    let marks = at;
    while (marks < lf && text.charCodeAt(marks) === GT) marks += 1;
    const start = marks < lf && text.charCodeAt(marks) === SPACE ? marks + 1 : marks;
    const separator = lf - start === SIGNATURE_SEPARATOR.length && text.startsWith(SIGNATURE_SEPARATOR, start);
    if (depth >= 0 && (depth !== marks - at || separator)) {
      out.push(quoted(depth, paragraph));
      paragraph = '';
    }
    depth = marks - at;
    const flowed = lf > start && text.charCodeAt(lf - 1) === SPACE && !separator;
    paragraph += text.slice(start, flowed && delSp ? lf - 1 : lf);
    if (!flowed) {
      out.push(quoted(depth, paragraph));
      paragraph = '';
      depth = -1;
    }
    if (lf >= end) break;
    at = lf + 1;
  }
  if (depth >= 0) out.push(quoted(depth, paragraph));
  return out.join('\n');
}

/** A paragraph's text under its quote marks: `>> text`, or `>>` alone when it is empty. */
function quoted(depth: number, text: string): string {
  if (depth === 0) return text;
  const marks = '>'.repeat(depth);
  return text === '' ? marks : `${marks} ${text}`;
}
