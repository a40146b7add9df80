import { type SmtpErrorReply, toSmtpReply } from '@mailroom/core';

/** An error smtp-server turns into a reply: `responseCode`, then the message as the text. */
export type SmtpError = Error & { responseCode: number };

/**
 * An error for a handler's callback. The server runs with ENHANCEDSTATUSCODES. Without
 * `enhancedCode`, smtp-server writes the one it keeps for the basic code (550 → 5.1.1, 451 →
 * 4.3.0, 554 → 5.6.0); with it, the text begins with it and the server adds none (MxSmtpServer).
 */
export function smtpError(code: number, text: string, enhancedCode?: string): SmtpError {
  return Object.assign(new Error(enhancedCode ? `${enhancedCode} ${text}` : text), { responseCode: code });
}

/** Any failure (PostgreSQL down, a bug) as the reply `toSmtpReply` gives it, enhanced code included: never a 5xx for an outage. */
export function failureReply(err: unknown): SmtpError {
  const reply: SmtpErrorReply = toSmtpReply(err);
  return smtpError(reply.code, reply.message, reply.enhancedCode);
}

/**
 * An error that refuses a connection before the greeting. smtp-server writes these without an
 * enhanced code of its own, so the text begins with one (`4.7.0 …`).
 */
export function refusal(code: number, enhancedCode: string, text: string): SmtpError {
  return smtpError(code, text, enhancedCode);
}

/** RFC 3463's 4.3.1, "mail system full": the sender keeps the message and tries again later (RFC 1870 §6.1's 452). */
export function insufficientStorage(): SmtpError {
  return smtpError(452, 'Insufficient system storage; try again later.', '4.3.1');
}
