import { startsHeaderField } from './message-headers';

/** What is used of mailsplit's splitter (5.4, under mailparser 3.9.31, pinned) to end a part's header section early. */
interface HeadNode {
  /** The part it is in; false for the message itself. */
  parentNode: HeadNode | false;
  multipart: string | false;
}
export interface HeadSplitter {
  node: HeadNode;
  /** mailsplit's HEAD (1) while a part's header section is read, BODY (2) after. */
  state: number;
  /** A line end not yet read, and whether the pending bytes continue a line already given out as too long. */
  lineLength: number;
  lineChunks: Buffer[];
  pendingLineTruncated: boolean;
  processLine(line: Buffer | false, final: boolean, next: (err?: Error | null, data?: unknown, flush?: boolean) => void): void;
  checkBoundary(line: Buffer): 1 | 2 | 3 | 4 | false;
  push(chunk: unknown): boolean;
}

const HEAD = 1;
const BODY = 2;
const EMPTY_LINE = Buffer.from('\r\n');
const DASH = 0x2d;

/**
 * Ends a part's header section at the first line that is no header field, where the empty line
 * that should come before its body is missing (`Content-Type: text/plain⏎hello`, or a base64
 * attachment's data right after its fields): that line and the rest are the part's body, as
 * Python's email package reads it (a MissingHeaderBodySeparatorDefect) and mail clients show it.
 * mailsplit read every line up to the next delimiter as header, so the text was lost and such an
 * attachment stored as 0 bytes. The message's own header section is left to
 * withBodyWhereFieldsEnd, which reads it before the parser does.
 *
 * Done as mailsplit ends a header section at its empty line: an empty line is read in its place
 * (the part's headers are parsed and it is given out, or an attached message started), then the
 * line itself is given out as the part's body. Its line end is held back until the next line is
 * read: in front of a delimiter it belongs to the delimiter (RFC 2046 §5.1.1), as it does for a
 * body read the usual way. A line starting with `--` may be a delimiter and is left as it was.
 */
export function withPartBodiesWhereFieldsEnd(splitter: HeadSplitter): void {
  const processLine = splitter.processLine.bind(splitter);
  const checkBoundary = splitter.checkBoundary.bind(splitter);
  let lastWasBoundary = false;
  splitter.checkBoundary = (line) => {
    const found = checkBoundary(line);
    lastWasBoundary = found !== false;
    return found;
  };
  // The line end of the first body line, for the part it was given out in.
  let held: { lineEnd: Buffer; node: HeadNode } | null = null;
  const giveOut = (node: HeadNode, value: Buffer) => splitter.push({ node, type: node.multipart ? 'data' : 'body', value });

  splitter.processLine = (line, final, next) => {
    if (held !== null) {
      const { lineEnd, node } = held;
      held = null;
      const whole = line && splitter.lineLength > 0 ? Buffer.concat([...splitter.lineChunks, line]) : line;
      if (!whole || !mayBeDelimiter(whole) || splitter.lineLength > 0) giveOut(node, lineEnd);
      else {
        lastWasBoundary = false;
        return processLine(line, final, (err, data, flush) => {
          if (!err && !lastWasBoundary) giveOut(node, lineEnd);
          next(err, data, flush);
        });
      }
    }
    const node = splitter.node;
    if (
      !line ||
      final ||
      splitter.state !== HEAD ||
      node.parentNode === false ||
      splitter.lineLength > 0 ||
      splitter.pendingLineTruncated ||
      isEmptyLine(line) ||
      mayBeDelimiter(line) ||
      line[0] === 0x20 ||
      line[0] === 0x09 ||
      startsHeaderField(line)
    ) {
      return processLine(line, final, next);
    }
    let ended = endHeaderSection();
    // An attached message whose first line is no field either: its own header section is empty.
    for (let depth = 0; !ended.err && stateOf(splitter) === HEAD && depth < 4; depth += 1) {
      splitter.push(ended.data);
      ended = endHeaderSection();
    }
    if (ended.err || stateOf(splitter) !== BODY) {
      if (ended.err) return next(ended.err);
      splitter.push(ended.data);
      return processLine(line, final, next);
    }
    // The part first (the splitter takes the bytes after this line as its body from here), then this line.
    const body = splitter.node;
    next(null, ended.data, ended.flush);
    const end = lineEndStart(line);
    giveOut(body, line.subarray(0, end));
    held = { lineEnd: line.subarray(end), node: body };
  };

  /** An empty line read where the header section should have ended (mailsplit calls `next` before it returns). */
  const endHeaderSection = () => {
    let ended: { err?: Error | null; data?: unknown; flush?: boolean } = { err: new Error('The header section could not be ended') };
    processLine(EMPTY_LINE, false, (err, data, flush) => {
      ended = { err, data, flush };
    });
    return ended;
  };
}

/** Read again after each line it reads: a call changes it. */
const stateOf = (splitter: HeadSplitter): number => splitter.state;

function isEmptyLine(line: Buffer): boolean {
  return (line.length === 1 && line[0] === 0x0a) || (line.length === 2 && line[0] === 0x0d && line[1] === 0x0a);
}

/** Whether a line may be a delimiter: `--` at its start, maybe after the line end before it that mailsplit's check allows. */
function mayBeDelimiter(line: Buffer): boolean {
  const start = line[0] === 0x0d && line[1] === 0x0a ? 2 : line[0] === 0x0d || line[0] === 0x0a ? 1 : 0;
  return line[start] === DASH && line[start + 1] === DASH;
}

/** Where the line's CRLF or LF starts (its length when it has none). */
function lineEndStart(line: Buffer): number {
  let end = line.length;
  if (line[end - 1] === 0x0a) end -= 1;
  if (line[end - 1] === 0x0d) end -= 1;
  return end;
}
