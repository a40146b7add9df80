import { bounceSuppressesAddress, type ReplyPhase, replyStatus } from '@mailroom/core';
import { CANNOT_DOWNGRADE } from '../message/downgrade-to-7bit';
import type { BounceType, DeliveryOutcome, SmtpReply } from './outcome';
import { parseRetryAfterSeconds } from './parse-retry-after';
import { parseSmtpReply } from './parse-smtp-reply';

/** The end of one SMTP transaction as nodemailer reports it. */
export type SmtpResult =
  /** sendMail resolved: `response` is the final reply to DATA, `host` the next hop's name. */
  | { ok: true; response: string; host: string }
  /** sendMail rejected (or the attempt failed before it), with whatever was thrown. */
  | { ok: false; error: unknown };

/** The fields nodemailer puts on its errors (`NodemailerError`), all optional. */
interface SmtpErrorFields {
  message?: unknown;
  code?: unknown;
  /** The system or OpenSSL code behind a socket error, e.g. 'ERR_SSL_WRONG_VERSION_NUMBER'. */
  originalCode?: unknown;
  /** Which of nodemailer's deadlines ran out, e.g. 'UPGRADE_TIMEOUT' (the TLS handshake). */
  timeoutType?: unknown;
  response?: unknown;
  responseCode?: unknown;
  command?: unknown;
}

// Steps before MAIL FROM, as nodemailer names them in `err.command` ('CONN' covers the greeting
// and socket-level failures at any time). A failure there is about the next hop, not the message.
const SESSION_SETUP_COMMANDS = new Set(['CONN', 'EHLO', 'HELO', 'LHLO', 'STARTTLS']);
// Our credentials were refused by the smarthost: an operator must fix it, no recipient is at fault.
const AUTH_ERROR_CODES = new Set(['EAUTH', 'ENOAUTH']);
// Error text kept for an outcome and its log line, in characters.
const MAX_ERROR_CHARS = 1000;

function errorFields(error: unknown): SmtpErrorFields {
  return typeof error === 'object' && error !== null ? (error as SmtpErrorFields) : {};
}

/**
 * True when an attempt failed because of the next hop rather than the message: no connection,
 * a timeout or dropped connection, a refused greeting, EHLO or STARTTLS, or a 421 (service
 * closing). Direct delivery then tries the next MX address.
 */
export function isNextHopFailure(error: unknown): boolean {
  const fields = errorFields(error);
  // EABORT is our own deadline; 'API' errors are nodemailer refusing the input, anywhere.
  if (fields.code === 'EABORT' || fields.command === 'API') return false;
  if (typeof fields.responseCode !== 'number') return true;
  return fields.responseCode === 421 || SESSION_SETUP_COMMANDS.has(String(fields.command));
}

// Socket errors that mean no connection was made at all.
const NOT_CONNECTED_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/**
 * Why an attempt never got a session: the connection was refused, the host or network was
 * unreachable, or it timed out connecting or waiting for the greeting (a tarpit). Null when the
 * next hop answered at all, or the failure came later, or the deadline was our own: only these
 * say the next hop is not taking connections now (see NextHopGate).
 */
export function connectionFailure(error: unknown): string | null {
  const fields = errorFields(error);
  if (typeof fields.responseCode === 'number' || fields.command !== 'CONN') return null;
  const notConnected =
    fields.timeoutType === 'CONNECT_TIMEOUT' ||
    fields.timeoutType === 'GREETING_TIMEOUT' ||
    (typeof fields.originalCode === 'string' && NOT_CONNECTED_CODES.has(fields.originalCode));
  if (!notConnected) return null;
  return typeof fields.message === 'string' ? fields.message.slice(0, MAX_ERROR_CHARS) : String(error);
}

/**
 * True when an attempt failed in TLS itself, without a reply: the handshake after STARTTLS was
 * refused, broke off or timed out, or the TLS layer failed later. Direct delivery then tries the
 * same host again without TLS (opportunistic TLS, RFC 3207 §4.1; Postfix's "may" level does the same).
 */
export function isTlsFailure(error: unknown): boolean {
  const fields = errorFields(error);
  if (typeof fields.responseCode === 'number') return false;
  return (
    fields.code === 'ETLS' ||
    fields.timeoutType === 'UPGRADE_TIMEOUT' ||
    (typeof fields.originalCode === 'string' && fields.originalCode.startsWith('ERR_SSL_')) ||
    isClosedDuringHandshake(fields)
  );
}

/**
 * The peer closed the connection after its 220 to STARTTLS, before the handshake finished: Node's
 * TLS client reports it (lib/_tls_wrap.js, onConnectEnd) as an ECONNRESET with this fixed text, and
 * nodemailer 10.6 passes it on as a socket error ('ESOCKET') rather than as 'ETLS', which it uses
 * when the close reaches it first (no report of this in nodemailer's issues as of 10.6; the
 * closest, #1240, is about the message itself). A reset (RST) during the handshake is Node's plain
 * `read ECONNRESET`, which says nothing of the phase: that one stays a failure of the next hop.
 */
function isClosedDuringHandshake(fields: SmtpErrorFields): boolean {
  return (
    fields.originalCode === 'ECONNRESET' &&
    typeof fields.message === 'string' &&
    fields.message.startsWith('Client network socket disconnected before secure TLS connection was established')
  );
}

/**
 * Turns the result of one SMTP transaction into a delivery outcome. This is the one place
 * that decides between delivered, deferred (retry later) and bounced (give up), and whether
 * a bounce suppresses the address:
 *
 * - 2xx after DATA → delivered.
 * - 4xx, and failures without a reply (connection refused, timeouts, TLS, DNS) → deferred,
 *   with `retryAfterSeconds` when the reply asks for a delay ("try again in 120 seconds").
 * - 5xx → bounced: enhanced 5.1.x → hard and suppressed (no such mailbox or domain), except
 *   5.1.7/5.1.8 and any rejection of MAIL FROM, which are about our sender, not the recipient;
 *   5.7.x → policy; 5.2.x and 5.3.x → soft; anything else → hard, not suppressed. A 5xx
 *   without an enhanced code is read by its text (`enhancedFromBasic`): "550 No such user here"
 *   as 5.1.1, "552 Mailbox full" as 5.2.2, "554 Message rejected as spam" as 5.7.1, "Sender
 *   verify failed … No Such User Here" (about our sender) as 5.7.1. An enhanced code is taken as
 *   written (`replyStatus` in core).
 * - 503 (bad sequence of commands) → deferred: it says the session was in the wrong state,
 *   not that the message was refused, so a new session can succeed.
 * - 530 (authentication required, RFC 4954 §6; "must issue a STARTTLS command first", RFC 3207
 *   §4) → deferred: the next hop refuses our session as it stands, whoever the recipient is.
 * - Any reply refusing the session itself (greeting, EHLO, STARTTLS) or our smarthost
 *   credentials → deferred, whatever its code: it is not about this recipient.
 */
export function classifySmtpResult(result: SmtpResult): DeliveryOutcome {
  if (result.ok) {
    return { kind: 'delivered', smtp: parseSmtpReply(result.response), host: result.host };
  }
  const error = errorFields(result.error);
  // nodemailer appends the whole reply (up to 1 MB from a hostile peer) to its message.
  const message = (typeof error.message === 'string' ? error.message : String(result.error)).slice(0, MAX_ERROR_CHARS);
  const code = typeof error.code === 'string' ? error.code : null;
  const response = typeof error.response === 'string' ? error.response : null;

  if (response !== null) {
    const reply = parseSmtpReply(response);
    if (reply.code === null && typeof error.responseCode === 'number') reply.code = error.responseCode;
    if (SESSION_SETUP_COMMANDS.has(String(error.command)) || AUTH_ERROR_CODES.has(code ?? '')) {
      // Even a 5xx greeting or a refused login says nothing about this recipient or message.
      return { kind: 'deferred', smtp: reply, error: message, retryAfterSeconds: parseRetryAfterSeconds(reply.message) };
    }
    return classifyReply(reply, message, { senderRejected: error.command === 'MAIL FROM', answeredData: error.command === 'DATA' });
  }

  // nodemailer refused the envelope itself, before any server saw it.
  if (code === 'EENVELOPE' && message.startsWith('Invalid recipient')) {
    return classifyReply({ code: null, enhancedCode: '5.1.3', message: 'Recipient address is not valid' }, message);
  }
  // The server advertised a SIZE limit smaller than the message.
  if (code === 'EMESSAGE' && message.startsWith('Message size larger than allowed')) {
    return classifyReply({ code: null, enhancedCode: '5.3.4', message }, message);
  }
  // The next hop offers no 8BITMIME and the message cannot be made 7-bit (RFC 6152 §3): "conversion
  // required but not supported" (RFC 3463).
  if (code === CANNOT_DOWNGRADE) {
    return classifyReply({ code: null, enhancedCode: '5.6.3', message }, message);
  }
  return { kind: 'deferred', smtp: null, error: code ? `${code}: ${message}` : message, retryAfterSeconds: null };
}

/**
 * Classifies a reply by its codes; also used for replies Mailroom makes up itself (NXDOMAIN,
 * null MX), which have no basic code and are permanent by their enhanced code's class.
 */
export function classifyReply(
  reply: SmtpReply,
  error: string,
  context: { senderRejected?: boolean; answeredData?: boolean } = {},
): DeliveryOutcome {
  const replyClass = reply.code !== null ? Math.floor(reply.code / 100) : Number(reply.enhancedCode?.charAt(0));
  if (replyClass === 2) {
    // Only an error path gets here with a 2xx, e.g. 250 where 354 was expected.
    return { kind: 'deferred', smtp: reply, error, retryAfterSeconds: null };
  }
  if (replyClass !== 5 || reply.code === 503 || reply.code === 530) {
    return { kind: 'deferred', smtp: reply, error, retryAfterSeconds: parseRetryAfterSeconds(reply.message) };
  }
  // A reply without an enhanced code ("550 No such user here") is read by its text, as a bounce
  // report by mail is. The reply keeps the codes it came with.
  const enhancedCode = replyStatus(reply.code, reply.enhancedCode, reply.message);
  const phase: ReplyPhase = { answeredData: context.answeredData === true, codeFromWords: reply.enhancedCode === null };
  const { bounceType, suppress } = bounceClass(enhancedCode, reply.message, context.senderRejected === true, phase);
  return { kind: 'bounced', smtp: reply, bounceType, suppress, code: enhancedCode };
}

function bounceClass(enhancedCode: string | null, text: string, senderRejected: boolean, phase: ReplyPhase): { bounceType: BounceType; suppress: boolean } {
  const [, subject] = (enhancedCode ?? '').split('.');
  switch (subject) {
    case '1': {
      // A refused MAIL FROM is about our sender, whatever its code; else the shared rule (5.1.7/5.1.8
      // never suppress, nor a text that blames a policy or our side, nor words alone after DATA).
      return { bounceType: 'hard', suppress: !senderRejected && bounceSuppressesAddress(enhancedCode, text, phase) };
    }
    case '7':
      return { bounceType: 'policy', suppress: false };
    case '2':
    case '3':
      return { bounceType: 'soft', suppress: false };
    default:
      return { bounceType: 'hard', suppress: false };
  }
}
