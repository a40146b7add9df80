/// <reference path="./untyped-modules.d.ts" />
import libmime from 'libmime';
import { MailParser, type MailParserOptions } from 'mailparser';
import { charsetName, hasRelabelledParameter, withKnownParameterCharsets } from './charset-labels';
import { decodeFlowed } from './flowed-text';
import { decodeWordsSafely } from './message-headers';
import { type CompareBoundary, withTransportPadding } from './transport-padding';
import { isUuencodeLabel, UudecodeStream } from './uudecode';

// What is used of mailparser's internals (3.9.31, pinned): it has no option to leave flowed text
// alone nor a table of charset aliases to add to. createNode(part) makes its tree node for each
// part mailsplit reads, before the part's body is decoded (by the stream the part's getDecoder()
// gives for its `encoding`, then flowed, then from `charset`) and before the part's `filename`
// is read; getTextContent() joins the decoded `textContent` of the tree's text parts into `text`.
// Its `splitter` (mailsplit) tests each line that may be a delimiter with compareBoundary().
/** A part as mailsplit reads it: flowed and delSp come from its Content-Type. */
interface SplitPart {
  flowed: boolean;
  delSp: boolean;
  /** Decoded by mailsplit from Content-Disposition's filename or Content-Type's name. */
  filename: string | false;
  headers: { getFirst(name: string): string };
  /** Content-Transfer-Encoding, lower-cased; false when there is none. */
  encoding: string | false;
  getDecoder(): NodeJS.ReadWriteStream;
}
/** mailparser's node of a part. */
interface PartNode {
  contentType?: string | false;
  charset?: string;
  textContent?: string;
  children?: PartNode[];
  /** Set here for a flowed text/plain part: whether DelSp=yes. */
  flowedDelSp?: boolean;
}
interface MailParserInternals {
  tree: PartNode | false;
  splitter: { compareBoundary: CompareBoundary };
  createNode(part: SplitPart): PartNode;
  getTextContent(): unknown;
}
const InternalMailParser = MailParser as unknown as new (options?: MailParserOptions) => MailParser & MailParserInternals;

/**
 * mailparser's streaming parser, but a part's charset label, and those in its filename, are
 * first given the name iconv-lite knows them by (see charset-labels); and a `text/plain;
 * format=flowed` part is decoded by decodeFlowed (RFC 3676, quote depth respected) after its
 * charset, instead of by mailsplit's decoder, which joins quoted lines across quote marks. Only
 * such parts cost anything more: a part with a filename pays a look at two of its headers.
 * Delimiter lines with transport padding are delimiters (see withTransportPadding), and a part
 * labelled `x-uuencode` is uudecoded (mailsplit passes what it does not know through as is).
 */
export class MimeParser extends InternalMailParser {
  constructor(options?: MailParserOptions) {
    super(options);
    const splitter = this.splitter;
    splitter.compareBoundary = withTransportPadding(splitter.compareBoundary.bind(splitter));
  }

  override createNode(part: SplitPart): PartNode {
    if (isUuencodeLabel(part.encoding)) part.getDecoder = () => new UudecodeStream();
    const node = super.createNode(part);
    if (node.charset !== undefined) node.charset = charsetName(node.charset);
    if (part.filename !== false) part.filename = relabelledFilename(part) ?? part.filename;
    if (part.flowed && node.contentType === 'text/plain') {
      node.flowedDelSp = part.delSp;
      // Read by mailparser once this returns: false keeps its own flowed decoder out.
      part.flowed = false;
    }
    return node;
  }

  override getTextContent(): unknown {
    const stack = this.tree === false ? [] : [this.tree];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (node.flowedDelSp !== undefined) {
        if (typeof node.textContent === 'string') node.textContent = decodeFlowed(node.textContent, node.flowedDelSp);
        node.flowedDelSp = undefined;
      }
      if (node.children) stack.push(...node.children);
    }
    return super.getTextContent();
  }
}

/** The part's filename read again when a charset label in it is one mailsplit decoded as UTF-8; undefined otherwise. */
function relabelledFilename(part: SplitPart): string | undefined {
  const disposition = part.headers.getFirst('content-disposition');
  const type = part.headers.getFirst('content-type');
  if (!hasRelabelledParameter(disposition) && !hasRelabelledParameter(type)) return undefined;
  const name = libmime.parseHeaderValue(withKnownParameterCharsets(disposition)).params.filename || libmime.parseHeaderValue(withKnownParameterCharsets(type)).params.name;
  return name ? decodeWordsSafely(name) : undefined;
}
