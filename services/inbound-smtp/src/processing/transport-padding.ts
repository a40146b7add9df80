/**
 * How mailsplit tells a delimiter line of a multipart: 1 (next part), 2 (close delimiter) or
 * false, given the line (its line ending included, maybe a line ending before it, which
 * `start` skips) and the boundary.
 */
export type CompareBoundary = (line: Buffer, start: number, boundary: Buffer) => 1 | 2 | false;

const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const LF = 0x0a;

/**
 * A delimiter comparison that also takes a delimiter line with transport padding: RFC 2046
 * §5.1.1 lets transports add spaces and tabs after the boundary (and after a close delimiter's
 * `--`), and says receivers MUST handle them. mailsplit takes only the bare form, so a padded
 * delimiter was body text: the parts behind it were lost, or a close delimiter ended up in the
 * text. A boundary never ends in a space (`bcharsnospace`), so the padding is never part of it.
 * Lines that match as they are pay nothing more.
 */
export function withTransportPadding(compare: CompareBoundary): CompareBoundary {
  return (line, start, boundary) => {
    const bare = compare(line, start, boundary);
    if (bare !== false) return bare;
    const unpadded = withoutPadding(line);
    return unpadded === line ? false : compare(unpadded, start, boundary);
  };
}

/** The line with the spaces and tabs before its line ending removed; the same Buffer when it has none. */
function withoutPadding(line: Buffer): Buffer {
  let end = line.length;
  while (end > 0 && (line[end - 1] === LF || line[end - 1] === CR)) end -= 1;
  let kept = end;
  while (kept > 0 && (line[kept - 1] === SPACE || line[kept - 1] === TAB)) kept -= 1;
  return kept === end ? line : Buffer.concat([line.subarray(0, kept), line.subarray(end)]);
}
