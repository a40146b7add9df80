import type { CompareBoundary } from './transport-padding';

/** A part as mailsplit's splitter tracks it while reading (mailsplit 5.4, under mailparser 3.9.31, pinned). */
export interface SplitterNode {
  /** The boundary of the multipart this part is in; false for the root. */
  _parentBoundary: Buffer | false;
  /** That multipart; false for the root. */
  _parentBoundaryOwner: SplitterNode | false;
  /** Bytes of header read so far, and the headers once parsed (false before). */
  _headerlen: number;
  headers: unknown;
  parseHeaders(): void;
}

/**
 * What is used of mailsplit's splitter: the part being read, and checkBoundary(line), which says
 * whether a line is a delimiter of the part's own multipart (1 next part, 2 close) or of the
 * multipart that one is in (3 next part there, 4 close there), moving `node` up on 3 and 4 itself.
 */
export interface BoundarySplitter {
  node: SplitterNode;
  compareBoundary: CompareBoundary;
  checkBoundary(line: Buffer): 1 | 2 | 3 | 4 | false;
  push(chunk: unknown): boolean;
}

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Makes the splitter take delimiters of every enclosing multipart, not only of the two nearest.
 * RFC 2046 §5.1.2: "an improperly truncated multipart entity may not have any terminating
 * boundary marker … MIME implementations are therefore required to recognize outer level
 * boundary markers at ANY level of inner nesting." mailsplit checks the part's own multipart and
 * the one around it, so a nested multipart left unclosed swallowed the rest of the message into
 * its last part (the outer delimiter and the next attachment became HTML or text). A delimiter of
 * an outer multipart now closes the unclosed ones inside it, as if their close delimiters had
 * been there. Only lines that start with `--` and are no delimiter of the two nearest pay this:
 * one look-up in the part's outer boundaries, gathered once per part (mailsplit allows 1,000).
 */
export function withEnclosingDelimiters(splitter: BoundarySplitter): void {
  const check = splitter.checkBoundary.bind(splitter);
  const outer = new WeakMap<SplitterNode, Map<string, { owner: SplitterNode; depth: number }>>();
  splitter.checkBoundary = (line) => {
    const found = check(line);
    if (found !== false) return found;
    // A line end before the delimiter may be part of the line, as mailsplit's check allows.
    const start = line[0] === CR && line[1] === LF ? 2 : line[0] === CR || line[0] === LF ? 1 : 0;
    if (line[start] !== DASH || line[start + 1] !== DASH) return false;
    const current = splitter.node;
    let boundaries = outer.get(current);
    if (boundaries === undefined) {
      boundaries = outerBoundaries(current);
      outer.set(current, boundaries);
    }
    if (boundaries.size === 0) return false;
    // The boundary the line would be a delimiter of: all after `--` (padding and line end left
    // out), or that without a close delimiter's `--`; of two, the nearer multipart's.
    let end = line.length;
    while (end > start + 2 && (line[end - 1] === LF || line[end - 1] === CR)) end -= 1;
    while (end > start + 2 && (line[end - 1] === SPACE || line[end - 1] === TAB)) end -= 1;
    const text = line.toString('latin1', start + 2, end);
    const candidates = [boundaries.get(text), text.endsWith('--') ? boundaries.get(text.slice(0, -2)) : undefined];
    const nearest = candidates.filter((c) => c !== undefined).sort((a, b) => a.depth - b.depth)[0];
    if (nearest === undefined) return false;
    const delimiter = splitter.compareBoundary(line, start, nearest.owner._parentBoundary as Buffer);
    if (delimiter === false) return false;
    // What a close delimiter of its own multipart does to a part with only headers.
    if (current._headerlen && !current.headers) {
      current.parseHeaders();
      splitter.push(current);
    }
    splitter.node = nearest.owner;
    return delimiter === 1 ? 3 : 4;
  };
}

/**
 * The boundaries of the multiparts around the part's own multipart's multipart, nearest first,
 * each with the multipart (`owner`) whose part it delimits: a delimiter of it is one of `owner`'s
 * multipart, which checkBoundary answers with 3 or 4 once `owner` is the splitter's node.
 */
function outerBoundaries(node: SplitterNode): Map<string, { owner: SplitterNode; depth: number }> {
  const boundaries = new Map<string, { owner: SplitterNode; depth: number }>();
  let depth = 0;
  for (let owner = node._parentBoundaryOwner; owner; owner = owner._parentBoundaryOwner) {
    depth += 1;
    const boundary = owner._parentBoundary;
    if (!boundary) continue;
    const key = boundary.toString('latin1');
    if (!boundaries.has(key)) boundaries.set(key, { owner, depth });
  }
  return boundaries;
}
