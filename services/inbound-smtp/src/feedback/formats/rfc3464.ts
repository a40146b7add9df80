import { isUtf8 } from 'node:buffer';
import { enhancedFromBasic } from '@mailroom/core';
import { decodeBody, decodeCharset, type Header, type MimeEntity, parseHeaderBlock, walk } from '../mime';
import type { DsnAction, DsnRecipient } from '../report';
import { findOriginal } from '../report-message';
import { actionFromStatus, findBasicCode, findEnhancedCode, isClassOnly, refineStatus, statedStatus } from '../status-codes';
import { bareAddress, oneLine } from '../text';
import type { ReportFormat } from './format';

// RFC 3464 multipart/report (report-type=delivery-status) with a message/delivery-status part
// (some MTAs label it text/delivery-status), and RFC 6533's message/global-delivery-status
// (UTF-8 fields). Amazon SES, Gmail, Outlook.com, Exchange Online, Postfix, Sendmail and
// modern Exim all send this; the Reporting-MTA names which.
const STATUS_TYPES = new Set(['message/delivery-status', 'text/delivery-status', 'message/global-delivery-status']);
const ACTIONS = new Set<DsnAction>(['failed', 'delayed', 'delivered', 'relayed', 'expanded']);

export const rfc3464: ReportFormat = {
  name: 'rfc3464',
  read(message) {
    const part = walk(message.root, { intoMessages: false }).find((e) => STATUS_TYPES.has(e.type));
    if (!part) return null;
    const groups = statusText(part, message.root)
      .replace(/\r\n?/g, '\n')
      .split(/\n[ \t]*\n/)
      .flatMap((block) => splitAtRecipientStarts(parseHeaderBlock(block.replace(/^\n+/, ''))))
      .filter((g) => g.length > 0);
    const perMessage = groups[0] ?? [];
    const recipients = groups.filter(isRecipientGroup).map(readRecipient);
    if (recipients.length === 0) return null;
    const reportingMta = field(perMessage, 'reporting-mta');
    return {
      kind: 'dsn',
      recipients,
      original: findOriginal(message),
      format: part.type === 'message/global-delivery-status' ? 'rfc6533' : 'rfc3464',
      ...(reportingMta ? { reportingMta: stripType(reportingMta) } : {}),
    };
  },
};

/**
 * The delivery-status fields as text. RFC 3464 makes them US-ASCII and gives the part no charset
 * (RFC 6533's global one is UTF-8), but Lotus Domino writes a Japanese Diagnostic-Code in the
 * charset of its human-readable part, ISO-2022-JP: 7-bit bytes that read as escape sequences
 * (`ESC $ B %f!<%6!<`) when taken for ASCII. So the part's own charset label is used when it has
 * one; else bytes that are plain ASCII or valid UTF-8 are read as UTF-8, and other bytes (an
 * escape, or 8-bit bytes that are not UTF-8) in the charset of the report's text part beside it.
 */
function statusText(part: MimeEntity, root: MimeEntity): string {
  if (part.params.charset || part.type === 'message/global-delivery-status') return decodeBody(part, 'text');
  const bytes = decodeBody(part, 'latin1');
  if (isUtf8(Buffer.from(bytes, 'latin1')) && !bytes.includes('\x1b')) return decodeCharset(bytes, 'utf-8');
  const beside = walk(root, { intoMessages: false }).find((e) => e.type === 'text/plain' && e.params.charset)?.params.charset;
  return decodeCharset(bytes, beside);
}

function field(group: Header[], name: string): string | undefined {
  return group.find((h) => h.name === name)?.value;
}

// Fields of the per-message group (RFC 3464 §2.2), and the ones a recipient group has once (§2.3).
const PER_MESSAGE = new Set(['reporting-mta', 'dsn-gateway', 'received-from-mta', 'arrival-date', 'original-envelope-id']);
const RECIPIENT_ONCE = new Set(['original-recipient', 'final-recipient', 'action', 'status']);

/**
 * One block between blank lines, cut into its groups where a recipient group starts without the
 * blank line RFC 3464 §2.1 puts before it (AOL writes its recipients so, and some gateways the
 * first one right after the per-message fields): at a recipient field the group already has
 * (MTAs write Original-Recipient before or after Final-Recipient, each the same way throughout),
 * and at a recipient's address after per-message fields. Kept whole, the first recipient would
 * take the next one's Diagnostic-Code (`field` reads the first of each) and the next one be lost.
 */
function splitAtRecipientStarts(block: Header[]): Header[][] {
  const groups: Header[][] = [[]];
  for (const header of block) {
    const current = groups[groups.length - 1] as Header[];
    const isAddress = header.name === 'original-recipient' || header.name === 'final-recipient';
    const opensAnother =
      (RECIPIENT_ONCE.has(header.name) && current.some((h) => h.name === header.name)) || (isAddress && current.some((h) => PER_MESSAGE.has(h.name)));
    if (opensAnother) groups.push([header]);
    else current.push(header);
  }
  return groups;
}

function isRecipientGroup(group: Header[]): boolean {
  return group.some((h) => h.name === 'final-recipient' || h.name === 'original-recipient' || h.name === 'action' || h.name === 'status');
}

/** `dns; mx.example.com` → `mx.example.com`. */
function stripType(value: string): string {
  return value.replace(/^\s*[\w-]+\s*;\s*/, '').trim();
}

/** An address-type (RFC 3464 §2.3.1–2): any atom, not only rfc822 and utf-8 (`unknown;`, `x400;`, …). */
const ADDRESS_TYPE = /^\s*[A-Za-z0-9][\w.+-]*\s*;/;

/** The address of a `type; address` field, with RFC 6533 `\x{HH}` escapes and RFC 3461 xtext `+HH` undone. */
function decodeAddress(value: string, xtext: boolean): string {
  let out = value
    .replace(ADDRESS_TYPE, '')
    .replace(/\\x\{([0-9A-Fa-f]{1,6})\}/g, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)));
  if (xtext) out = out.replace(/\+([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return bareAddress(out);
}

/**
 * A Status with a subject but no detail (`5.2.0`, `4.3.0`), as a reporting MTA derives one from a
 * bare basic reply code. Not a policy one (`5.7.0`): a policy code is never read as a missing
 * recipient, whatever the words (DESIGN §4).
 */
const derivedFromBasic = (status: string) => /^[245]\.[0-689]\.0$/.test(status);

/**
 * One recipient group. The status is the Status field's code, except where the Diagnostic-Code
 * says better, in the same class:
 * - a remote reply quoted with its own enhanced code (`smtp; 550 5.1.1 …`, SES's `5.1.0 - Unknown
 *   address error 550-'5.2.2 … Mailbox Full'`) is the truth, over the Status and over a
 *   reporting MTA's summary code before it (status-codes.ts `statedStatus`);
 * - another enhanced code replaces a missing Status or one that is only a class (`5.0.0`);
 * - a reply with only a basic code (`smtp; 550 Unknown user`) is read by its text
 *   (`enhancedFromBasic`) when the Status is missing or has no detail (`5.0.0`, sendmail's
 *   `5.2.0` for a bare 550; never a policy `5.7.0`): the reporting MTA derived such a Status from
 *   the basic code alone;
 * - a Status that is still only a class is refined by the words (`refineStatus`).
 * A missing or unknown Action follows from the status.
 */
function readRecipient(group: Header[]): DsnRecipient {
  const diagnosticField = field(group, 'diagnostic-code');
  const diagnostic = diagnosticField ? oneLine(stripType(diagnosticField)) : null;
  let status = findEnhancedCode(field(group, 'status') ?? '');
  const stated = diagnostic ? statedStatus(diagnostic) : null;
  const sameClass = (code: string) => status === null || code[0] === status[0];
  if (stated && sameClass(stated.status) && (status === null || stated.fromReply || isClassOnly(status))) status = stated.status;
  const basic = diagnostic && !stated ? findBasicCode(diagnostic) : null;
  if (diagnostic && basic !== null && (status === null || (derivedFromBasic(status) && sameClass(String(basic))))) {
    const reading = enhancedFromBasic(basic, diagnostic);
    if (status === null || !isClassOnly(reading)) status = reading;
  }
  if (status && diagnostic) status = refineStatus(status, diagnostic);
  const actionText = (field(group, 'action') ?? '').trim().toLowerCase().split(/[\s(]/)[0] as DsnAction;
  const recipient: DsnRecipient = { action: ACTIONS.has(actionText) ? actionText : actionFromStatus(status), status, diagnostic };
  const remoteMta = field(group, 'remote-mta');
  if (remoteMta) recipient.remoteMta = stripType(remoteMta);
  const finalRecipient = field(group, 'final-recipient');
  if (finalRecipient) recipient.finalRecipient = decodeAddress(finalRecipient, false);
  const originalRecipient = field(group, 'original-recipient');
  if (originalRecipient) recipient.originalRecipient = decodeAddress(originalRecipient, /^\s*rfc822\s*;/i.test(originalRecipient));
  return recipient;
}
