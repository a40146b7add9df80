import { type ErrorName, isMailroomError, toMailroomError } from './errors';

/** An SMTP reply: basic code, RFC 3463 enhanced status code and one line of text. */
export interface SmtpErrorReply {
  code: number;
  enhancedCode: string;
  message: string;
}

/**
 * The SMTP counterpart of `ERROR_STATUS`: each error name's reply when it ends an SMTP
 * command. Transient conditions are 4xx so the sending MTA retries; only failures that will
 * not change on retry are 5xx. This table is the only place a name is tied to a reply.
 */
export const SMTP_REPLY: Readonly<Record<ErrorName, Readonly<SmtpErrorReply>>> = {
  invalid_json: { code: 501, enhancedCode: '5.5.4', message: 'Syntax error in parameters.' },
  invalid_idempotency_key: { code: 501, enhancedCode: '5.5.4', message: 'Syntax error in parameters.' },
  missing_api_key: { code: 530, enhancedCode: '5.7.0', message: 'Authentication required.' },
  invalid_session: { code: 535, enhancedCode: '5.7.8', message: 'Authentication credentials invalid.' },
  invalid_credentials: { code: 535, enhancedCode: '5.7.8', message: 'Authentication credentials invalid.' },
  invalid_api_key: { code: 535, enhancedCode: '5.7.8', message: 'Authentication credentials invalid.' },
  restricted_api_key: { code: 550, enhancedCode: '5.7.1', message: 'Not permitted.' },
  forbidden: { code: 550, enhancedCode: '5.7.1', message: 'Not permitted.' },
  domain_not_verified: { code: 550, enhancedCode: '5.7.1', message: 'Domain not verified.' },
  not_found: { code: 550, enhancedCode: '5.1.1', message: 'No such recipient here.' },
  method_not_allowed: { code: 502, enhancedCode: '5.5.1', message: 'Command not implemented.' },
  request_timeout: { code: 421, enhancedCode: '4.4.2', message: 'Timeout; closing connection.' },
  invalid_idempotent_request: { code: 554, enhancedCode: '5.3.0', message: 'Transaction failed.' },
  concurrent_idempotent_requests: { code: 451, enhancedCode: '4.3.0', message: 'Try again later.' },
  conflict: { code: 451, enhancedCode: '4.3.0', message: 'Try again later.' },
  payload_too_large: { code: 552, enhancedCode: '5.3.4', message: 'Message size exceeds fixed limit.' },
  headers_too_large: { code: 552, enhancedCode: '5.3.4', message: 'Message header size exceeds limit.' },
  validation_error: { code: 501, enhancedCode: '5.5.4', message: 'Syntax error in parameters.' },
  missing_required_field: { code: 501, enhancedCode: '5.5.4', message: 'Syntax error in parameters.' },
  rate_limit_exceeded: { code: 451, enhancedCode: '4.7.1', message: 'Rate limited; try again later.' },
  internal_server_error: { code: 451, enhancedCode: '4.3.0', message: 'Temporary local problem; try again later.' },
  service_unavailable: { code: 451, enhancedCode: '4.3.0', message: 'Temporary local problem; try again later.' },
};

const MAX_TEXT = 200; // characters of a MailroomError's own message kept in the reply line

/**
 * The one place any error becomes an SMTP reply. A `MailroomError` gets its table entry with
 * its own message (one printable ASCII line); PostgreSQL or Redis being unreachable is
 * `service_unavailable`; anything else is `internal_server_error` with the table's text, so
 * an unknown failure is never a permanent 5xx and never leaks internals.
 */
export function toSmtpReply(err: unknown): SmtpErrorReply {
  if (isMailroomError(err)) {
    const reply = SMTP_REPLY[err.name];
    return { ...reply, message: oneLine(err.message) || reply.message };
  }
  return { ...SMTP_REPLY[toMailroomError(err).name] };
}

/** `451 4.3.0 Try again later.`, as written on the wire (without CRLF). */
export function formatSmtpReply(reply: SmtpErrorReply): string {
  return `${reply.code} ${reply.enhancedCode} ${reply.message}`;
}

function oneLine(text: string): string {
  return text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim()
    .slice(0, MAX_TEXT);
}
