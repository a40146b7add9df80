/** A part as mailsplit's splitter makes it (mailsplit 5.4, under mailparser 3.9.31, pinned); parseHeaders() sets the rest. */
interface TypedNode {
  parentNode: TypedNode | false;
  /** Parsed by parseHeaders(); false before. getFirst gives a field's value as written (unfolded, case kept). */
  headers: { hasHeader(name: string): boolean; getFirst(name: string): string } | false;
  /** Lower-cased; mailsplit's own default (text/plain, or a type from a filename) when the part has no Content-Type. */
  contentType: string | false;
  /** The subtype of a multipart (`mixed`, `digest`), else false. */
  multipart: string | false;
  _boundary: Buffer | false;
  rfc822: boolean;
  parseHeaders(): void;
}

/** What is used of mailsplit's splitter: the part being read, newNode(parent), which starts the next part, and checkBoundary (see enclosing-delimiters). */
export interface TypingSplitter {
  node: TypedNode;
  newNode(parent?: TypedNode | false): void;
  checkBoundary(line: Buffer): 1 | 2 | 3 | 4 | false;
}

/**
 * Gives a part the content type RFC 2045 and 2046 give it where its header does not say one that
 * can be read, as each part's headers are parsed (before its body is read):
 * - a Content-Type that is no media type (`Content-Type: text`, with no subtype, or empty) is
 *   text/plain, RFC 2045 §5.2's default (message/rfc822 in a digest); mailsplit kept `text` and
 *   the part became a nameless attachment. One followed by a comment or by junk instead of a `;`
 *   (`text/html (markup)`, `text/plain charset=utf-8`) is its leading type, and a multipart so
 *   written is split by its boundary, one in the junk too (text when it has none);
 * - a part without Content-Type in a multipart/digest is message/rfc822 (RFC 2046 §5.1.5), and
 *   so one attachment holding its bytes, as a declared one is; mailsplit made it text/plain and
 *   the digested message's headers and text became the digest's text;
 * - a multipart that cannot be split into parts is text/plain, what RFC 2045 §5.2 says of a
 *   Content-Type that is invalid, and what mail clients show: mailsplit read its body as
 *   preamble, and so lost it. Which multiparts those are is known only once the message is read
 *   (no delimiter of theirs came: the boundary parameter RFC 2046 §5.1.1 requires is missing, or
 *   never appears in the body), so a second reading makes those numbered in `asText` text/plain.
 * Parts are numbered in the order the splitter starts them (the root is 0); a part read as
 * text/plain is read as the multipart was up to its end, so the numbers after it stay the same.
 * Returns the numbers of the multiparts none of whose delimiters came, once the message is read.
 */
export function withDefaultContentTypes(splitter: TypingSplitter, asText: ReadonlySet<number>): () => Set<number> {
  const nodes: TypedNode[] = [];
  const split = new WeakSet<TypedNode>();
  const track = (node: TypedNode) => {
    const number = nodes.length;
    nodes.push(node);
    const parse = node.parseHeaders.bind(node);
    node.parseHeaders = () => {
      if (node.headers) return;
      parse();
      typeDefaults(node, asText.has(number));
    };
  };
  const newNode = splitter.newNode.bind(splitter);
  splitter.newNode = (parent) => {
    newNode(parent);
    track(splitter.node);
  };
  // The root, started by the splitter's constructor.
  track(splitter.node);
  const check = splitter.checkBoundary.bind(splitter);
  splitter.checkBoundary = (line) => {
    const node = splitter.node;
    const found = check(line);
    // A delimiter of the part's own multipart: its next part, or its close delimiter.
    if (found === 1 || found === 2) split.add(node);
    return found;
  };
  return () => new Set(nodes.flatMap((node, number) => (node.multipart && !split.has(node) ? [number] : [])));
}

/**
 * A media type as RFC 2045 §5.1 writes one: a type and a subtype, one slash between them; and one
 * before a comment (`text/html (markup)`: RFC 822 lets one stand between any two tokens of a
 * structured field) or before junk (a `;` left out).
 */
const MEDIA_TYPE = /^[^\s/()]+\/[^\s/()]+$/;
const LEADING_MEDIA_TYPE = /^([^\s/()]+\/[^\s/()]+)[\s(]/;
// A boundary parameter in what follows such a type: quoted (RFC 2046 §5.1.1: 1–70 characters) or a token.
const JUNK_BOUNDARY = /\bboundary[ \t]*=[ \t]*(?:"([^"\r\n]{1,70})"|([^\s;"()]{1,70}))/i;

function typeDefaults(node: TypedNode, asText: boolean): void {
  const inDigest = node.parentNode !== false && node.parentNode.multipart === 'digest';
  const declared = node.headers !== false && node.headers.hasHeader('Content-Type');
  if (node.multipart && asText) {
    node.multipart = false;
    node._boundary = false;
    node.contentType = 'text/plain';
  } else if (inDigest && !declared) {
    node.contentType = 'message/rfc822';
    node.rfc822 = true;
  } else if (declared && !MEDIA_TYPE.test(node.contentType || '')) {
    // `text/html (markup)` is text/html, `text/plain charset=utf-8` text/plain, `multipart/mixed
    // boundary="b"` (its `;` left out, the boundary folded onto the next line) split by that boundary.
    const written = node.contentType || '';
    const leading = LEADING_MEDIA_TYPE.exec(written)?.[1];
    // The boundary as written: mailsplit's contentType is lower-cased, and boundaries are not.
    const junk = leading?.startsWith('multipart/') && node.headers ? JUNK_BOUNDARY.exec(node.headers.getFirst('Content-Type')) : null;
    const boundary = leading?.startsWith('multipart/') ? node._boundary || (junk ? Buffer.from((junk[1] ?? junk[2]) as string) : false) : false;
    const type = leading && (!leading.startsWith('multipart/') || boundary) ? leading : inDigest ? 'message/rfc822' : 'text/plain';
    node.multipart = boundary ? type.slice('multipart/'.length) : false;
    node._boundary = boundary;
    node.contentType = type;
    node.rfc822 = type === 'message/rfc822';
  }
}
