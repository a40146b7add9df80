import { smtpError, type SmtpError } from './smtp-error';

// The path of a MAIL or RCPT line: after the verb's colon, `<` … `>`, a quoted local part's
// `<`, `>` and escaped quotes included; the parameters after it are not part of it.
const PATH = /^[^:]*:\s*<((?:"(?:[^"\\]|\\.)*"|[^<>"])*)>/s;
// Any byte outside ASCII: what SMTPUTF8 alone allows in a path.
const NON_ASCII = /\P{ASCII}/u;

/**
 * Whether a MAIL or RCPT command line names a path with characters outside ASCII. Read from the
 * line as sent, not from smtp-server's address, which has A-label domains written as U-labels
 * (`x@xn--bcher-kva.example` reads `x@bücher.example`), although an A-label is plain ASCII that
 * needs no SMTPUTF8. A non-ASCII parameter is not the path's: it stays the 555 of an unknown one.
 */
export function hasNonAsciiPath(command: Buffer): boolean {
  // Nearly every command line is ASCII: those are answered by one pass over the bytes.
  if (!command.some((byte) => byte >= 0x80)) return false;
  const path = PATH.exec(command.toString())?.[1];
  return path !== undefined && NON_ASCII.test(path);
}

/**
 * RFC 6531 §3.4 and §3.5: an internationalized (UTF-8) mailbox may appear in MAIL or RCPT only in
 * a transaction whose MAIL FROM carried SMTPUTF8; otherwise the server answers 553 with
 * X.6.7, "Non-ASCII addresses not permitted for that sender/recipient" (RFC 5248). The client
 * then knows to retry with SMTPUTF8 (or to downgrade), and no message whose envelope needs
 * SMTPUTF8 is stored as if it did not. Postfix answers the same with `strict_smtputf8 = yes`.
 */
export function smtpUtf8Required(): SmtpError {
  return smtpError(553, 'Non-ASCII address without SMTPUTF8 (RFC 6531); send MAIL FROM with the SMTPUTF8 parameter.', '5.6.7');
}
