/// <reference path="./untyped-modules.d.ts" />
import libmime from 'libmime';
import { type EmailAddress, MailParser, type MailParserOptions } from 'mailparser';
import { charsetName, hasRelabelledParameter, withKnownParameterCharsets } from './charset-labels';
import { type TypingSplitter, withDefaultContentTypes } from './default-content-types';
import { type BoundarySplitter, withEnclosingDelimiters } from './enclosing-delimiters';
import { decodeFlowed } from './flowed-text';
import { hasNonUtf8Bytes, headerBytesText, withoutFoldsInCharacters } from './header-bytes';
import { decodeWordsSafely } from './message-headers';
import { hasLiteralSection, withLiteralSectionsEncoded } from './parameter-sections';
import { type HeadSplitter, withPartBodiesWhereFieldsEnd } from './part-header-end';
import { withTransportPadding } from './transport-padding';
import { type CharsetDecoder, UNDECLARED_HTML, UNDECLARED_TEXT, undeclaredDecoder } from './undeclared-charset';
import { isUuencodeLabel, UudecodeStream } from './uudecode';

// What is used of mailparser's internals (3.9.31, pinned): it has no option to leave flowed text
// alone nor a table of charset aliases to add to. createNode(part) makes its tree node for each
// part mailsplit reads, before the part's body is decoded (by the stream the part's getDecoder()
// gives for its `encoding`, then flowed, then from `charset`) and before the part's `filename`
// is read, and whose `isAttachment` says whether the part is given as an attachment or as text;
// getTextContent() joins the decoded `textContent` of the tree's text parts into `text`.
// Its `splitter` (mailsplit) tests each line that may be a delimiter with checkBoundary(), which
// compares it with boundaries by compareBoundary(). A text part's charset is decoded by the
// stream its `decoder` gives for the node's `charset`, unless that is absent, ascii, us-ascii or
// utf-8 (then the bytes are read as UTF-8); decodeStream throws on a label no decoder knows, and
// the bytes are then read as UTF-8 too. decodeAddresses(list) decodes each address header's
// mailboxes in place, and turns a domain that starts with an A-label into Unicode.
/** A part as mailsplit reads it: flowed and delSp come from its Content-Type. */
interface SplitPart {
  flowed: boolean;
  delSp: boolean;
  /** Decoded by mailsplit from Content-Disposition's filename or Content-Type's name. */
  filename: string | false;
  /** getList() gives each header field as written (a binary string, folding included), its name lower-cased as `key`. */
  headers: { getFirst(name: string): string; getList(): { key: string; line: string }[] };
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
  /** The multipart it is in (mailparser's tree); undefined for the root. */
  parent?: PartNode;
  /** Whether mailparser gives it as an attachment rather than as text or HTML. */
  isAttachment?: boolean;
  /** Set here for a flowed text/plain part: whether DelSp=yes. */
  flowedDelSp?: boolean;
}
interface MailParserInternals {
  tree: PartNode | false;
  splitter: BoundarySplitter & TypingSplitter & HeadSplitter;
  decoder: { decodeStream(charset: string): NodeJS.ReadWriteStream };
  createNode(part: SplitPart): PartNode;
  getTextContent(): unknown;
  decodeAddresses(addresses: EmailAddress[]): void;
}
const InternalMailParser = MailParser as unknown as new (options?: MailParserOptions) => MailParser & MailParserInternals;

/**
 * mailparser's streaming parser, but a part's charset label, and those in its filename, are
 * first given the name iconv-lite knows them by (see charset-labels); and a `text/plain;
 * format=flowed` part is decoded by decodeFlowed (RFC 3676, quote depth respected) after its
 * charset, instead of by mailsplit's decoder, which joins quoted lines across quote marks. Only
 * such parts cost anything more: a part with a filename pays a look at two of its headers.
 * Delimiter lines with transport padding are delimiters (see withTransportPadding), so are those
 * of any enclosing multipart (see withEnclosingDelimiters), a part's header section ends at its
 * first line that is no field (see withPartBodiesWhereFieldsEnd), a part labelled `x-uuencode` is
 * uudecoded (mailsplit passes what it does not know through as is), an RFC 2231 filename with
 * literal sections is read as RFC 2231 says (see parameter-sections), and a named text part
 * after the first of its multipart is an attachment (see isNamedTextFile). A part without
 * Content-Type in a digest, and a multipart that cannot be split, have the type RFC 2045 and 2046
 * give them (see withDefaultContentTypes: the multiparts numbered in `asText` are read as text,
 * and unsplitMultiparts() names those a reading could not split). Text in no charset a decoder
 * can honour is read as undeclared-charset says, and an A-label domain is kept as written.
 */
export class MimeParser extends InternalMailParser {
  /** The numbers of the multiparts whose boundary never came, once the message is read. */
  readonly unsplitMultiparts: () => Set<number>;
  private readonly charsetDecoder: CharsetDecoder;

  constructor(options?: MailParserOptions, asText: ReadonlySet<number> = new Set()) {
    super(options);
    const splitter = this.splitter;
    splitter.compareBoundary = withTransportPadding(splitter.compareBoundary.bind(splitter));
    withEnclosingDelimiters(splitter);
    this.unsplitMultiparts = withDefaultContentTypes(splitter, asText);
    withPartBodiesWhereFieldsEnd(splitter);
    const decoder = this.decoder;
    this.charsetDecoder = (label) => {
      try {
        return decoder.decodeStream(label);
      } catch {
        return undefined;
      }
    };
    this.decoder = {
      decodeStream: (charset) =>
        charset === UNDECLARED_TEXT || charset === UNDECLARED_HTML ? undeclaredDecoder(charset === UNDECLARED_HTML, this.charsetDecoder) : decoder.decodeStream(charset),
    };
  }

  override createNode(part: SplitPart): PartNode {
    if (isUuencodeLabel(part.encoding)) part.getDecoder = () => new UudecodeStream();
    const node = super.createNode(part);
    if (node.charset !== undefined) node.charset = charsetName(node.charset);
    if ((node.contentType === 'text/plain' || node.contentType === 'text/html') && !this.honoursCharset(node.charset)) {
      node.charset = node.contentType === 'text/html' ? UNDECLARED_HTML : UNDECLARED_TEXT;
    }
    if (part.filename !== false) {
      part.filename = relabelledFilename(part) ?? part.filename;
      if (isNamedTextFile(node)) node.isAttachment = true;
    }
    if (part.flowed && node.contentType === 'text/plain') {
      node.flowedDelSp = part.delSp;
      // Read by mailparser once this returns: false keeps its own flowed decoder out.
      part.flowed = false;
    }
    return node;
  }

  /**
   * Whether a text part's declared charset is read as declared: a label a decoder knows (or
   * UTF-8), not us-ascii, which 8-bit bytes break (7-bit text reads the same either way).
   */
  private honoursCharset(charset: string | undefined): boolean {
    if (charset === undefined) return false;
    const name = charset.toLowerCase().replace(/[^a-z0-9]+/g, '');
    if (name === 'utf8') return true;
    return name !== 'ascii' && name !== 'usascii' && this.charsetDecoder(charset) !== undefined;
  }

  /** mailparser's, but each address as written: its A-label domains (a homograph's `xn--80ak6aa92e.com`) are not shown in Unicode. */
  override decodeAddresses(addresses: EmailAddress[]): void {
    const written = new Map<EmailAddress, string>();
    const visit = (list: EmailAddress[]) => {
      for (const entry of list) {
        // The test mailparser converts by; an encoded word in an address it decodes first (RFC 2047 forbids one there).
        if (entry.address && /@xn--/.test(entry.address) && !entry.address.includes('=?')) written.set(entry, entry.address);
        if (entry.group) visit(entry.group);
      }
    };
    visit(addresses);
    super.decodeAddresses(addresses);
    for (const [entry, address] of written) entry.address = address;
  }

  override getTextContent(): unknown {
    const texts: string[] = [];
    const htmls: string[] = [];
    if (this.tree !== false) collectText(this.tree, texts, htmls);
    // mailparser also joins into `html` an HTML rendering of each text part outside an
    // alternative, and into `text` a text rendering of each HTML part there: skipTextToHtml and
    // skipHtmlToText make those '', but the separators stay (`<p>html</p><br/>\n` beside a
    // mailing list's text footer). `html` and `text` are the parts as sent, joined as mailparser does.
    const content = super.getTextContent() as { text?: string; html?: string };
    if (htmls.length > 0) content.html = htmls.join('<br/>\n');
    else delete content.html;
    if (texts.length > 0) content.text = texts.join('\n');
    return content;
  }
}

/**
 * Pushes the text/plain and text/html contents of a part and the parts in it, in message order
 * (a flowed text decoded first), to `texts` and `htmls`. Of a multipart/alternative, the versions
 * of one content (RFC 2046 §5.1.4), only the last that has text gives its text, and the last that
 * has HTML its HTML ("the last part is the best"): two text/plain versions (a plain and a flowed
 * one) are not joined into one text. The text comes from the last version that is text alone,
 * when one is: an HTML version's text fragment (a footer beside its HTML and images) is no
 * rendering of the whole. Recursion is bounded by mailsplit's 1,000 parts.
 */
function collectText(node: PartNode, texts: string[], htmls: string[]): void {
  if (node.flowedDelSp !== undefined) {
    if (typeof node.textContent === 'string') node.textContent = decodeFlowed(node.textContent, node.flowedDelSp);
    node.flowedDelSp = undefined;
  }
  if (node.textContent && node.contentType === 'text/plain') texts.push(node.textContent);
  if (node.textContent && node.contentType === 'text/html') htmls.push(node.textContent);
  if (!node.children) return;
  if (node.contentType !== 'multipart/alternative') {
    for (const child of node.children) collectText(child, texts, htmls);
    return;
  }
  let plainVersion: string[] = [];
  let anyText: string[] = [];
  let html: string[] = [];
  for (const child of node.children) {
    const childTexts: string[] = [];
    const childHtmls: string[] = [];
    collectText(child, childTexts, childHtmls);
    if (childTexts.length > 0 && childHtmls.length === 0) plainVersion = childTexts;
    if (childTexts.length > 0) anyText = childTexts;
    if (childHtmls.length > 0) html = childHtmls;
  }
  texts.push(...(plainVersion.length > 0 ? plainVersion : anyText));
  htmls.push(...html);
}

/**
 * Whether a text/plain or text/html part that has a name (and is not an attachment already) is a
 * file attached inline, as Apple Mail sends a .txt or .html file (`Content-Disposition: inline;
 * filename=notes.txt`): such a part is not the message's text when it is not the first part of its
 * multipart, nor one of an alternative's renderings of the text. mailparser made every inline text
 * part text, so the file was joined into `text` and missing from the attachments; Gmail,
 * Thunderbird and Python's email package (iter_attachments) list it as an attachment.
 */
function isNamedTextFile(node: PartNode): boolean {
  const parent = node.parent;
  if (node.isAttachment !== false || parent === undefined || (node.contentType !== 'text/plain' && node.contentType !== 'text/html')) return false;
  return parent.contentType !== 'multipart/alternative' && parent.children?.[0] !== node;
}

/**
 * The part's filename read again when a charset label in it is one mailsplit decoded as UTF-8,
 * when an RFC 2231 section of it is literal (see parameter-sections), or when its raw 8-bit bytes
 * (RFC 6532 allows a UTF-8 name in a quoted string) are not all UTF-8 or are folded inside a
 * character: mailsplit keeps such a field as Latin-1, where the message's own headers are read
 * as headerBytesText says. Undefined otherwise.
 */
function relabelledFilename(part: SplitPart): string | undefined {
  const disposition = partHeader(part, 'content-disposition');
  const type = partHeader(part, 'content-type');
  if (!rereads(disposition) && !rereads(type)) return undefined;
  const read = (value: string) => libmime.parseHeaderValue(withLiteralSectionsEncoded(withKnownParameterCharsets(value))).params;
  const name = read(disposition.value).filename || read(type.value).name;
  return name ? decodeWordsSafely(name) : undefined;
}

/** A part's first field of that name, unfolded and read as headerBytesText says; `misread` when mailsplit read its bytes otherwise. */
function partHeader(part: SplitPart, name: string): { value: string; misread: boolean } {
  const line = part.headers.getList().find((h) => h.key === name)?.line;
  if (line === undefined) return { value: '', misread: false };
  const repaired = withoutFoldsInCharacters(line);
  return { value: headerBytesText(libmime.decodeHeader(repaired).value), misread: repaired !== line || hasNonUtf8Bytes(line) };
}

const rereads = ({ value, misread }: { value: string; misread: boolean }) => misread || hasRelabelledParameter(value) || hasLiteralSection(value);
