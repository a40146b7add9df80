import { classifySmtpResult } from '../../src/delivery/classify-smtp-result';

/** An error shaped like the ones nodemailer 10 hands to sendMail's caller. */
export function smtpError(fields: { code: string; response?: string; command?: string; message?: string; originalCode?: string }) {
  const responseCode = fields.response ? Number(fields.response.slice(0, 3)) : undefined;
  const message = (fields.message ?? 'Failed') + (fields.response ? `: ${fields.response}` : '');
  return Object.assign(new Error(message), { ...fields, responseCode, permanent: responseCode ? responseCode >= 500 : undefined });
}

/** The outcome of a reply refusing `command` (RCPT TO by default), as nodemailer reports it. */
export const rejected = (response: string, command = 'RCPT TO', code = 'EENVELOPE') =>
  classifySmtpResult({ ok: false, error: smtpError({ code, response, command }) });
