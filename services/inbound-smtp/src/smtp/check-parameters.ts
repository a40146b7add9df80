import { smtpError, type SmtpError } from './smtp-error';

/**
 * The MAIL FROM parameters of the extensions EHLO offers: SIZE (RFC 1870), BODY (RFC 6152, 7BIT
 * or 8BITMIME; smtp-server checks the value) and SMTPUTF8 (RFC 6531). DSN's RET and ENVID,
 * REQUIRETLS and AUTH are not offered, so a client may not use them.
 */
export const MAIL_PARAMETERS: ReadonlySet<string> = new Set(['SIZE', 'BODY', 'SMTPUTF8']);
/** No extension offered defines a RCPT TO parameter (DSN's NOTIFY and ORCPT are not offered). */
export const RCPT_PARAMETERS: ReadonlySet<string> = new Set();

/**
 * RFC 5321 §4.1.1.11: a parameter the server does not recognize or implement is refused with
 * `555` (5.5.4), rather than silently ignored (smtp-server accepts any). Null when all are known.
 * smtp-server upper-cases the names; the reply names them in printable ASCII only (RFC 5321 §4.2:
 * reply text is ASCII), so a name of 8-bit bytes cannot put them on the wire.
 */
export function unsupportedParameter(args: object | false | undefined, allowed: ReadonlySet<string>): SmtpError | null {
  const unknown = Object.keys(args || {}).filter((name) => !allowed.has(name));
  if (unknown.length === 0) return null;
  const names = unknown.join(', ').replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
  return smtpError(555, `Unsupported parameter${unknown.length > 1 ? 's' : ''}: ${names}`);
}

/** MAIL FROM's SIZE= (RFC 1870; smtp-server has checked it is digits), or 0 when none was announced. */
export function announcedSize(args: object | false | undefined): number {
  return args ? Number((args as { SIZE?: string }).SIZE ?? 0) || 0 : 0;
}
