import { redactUrl } from '@mailroom/core';
/** A validated smarthost URL (`OUTBOUND_SMTP_URL`). */
export interface SmarthostUrl {
  /** The URL as configured, credentials included: only for nodemailer, never for logs. */
  url: string;
  /** Host name, for outcomes and logs. */
  host: string;
  /** true for smtps:// (TLS from the first byte); smtp:// upgrades with STARTTLS when offered. */
  secure: boolean;
  /**
   * smtp:// with credentials: STARTTLS must succeed before AUTH, or the password would cross the
   * network in plaintext whenever STARTTLS is missing from EHLO (stripped on the path) or
   * refused. `?requireTLS=false` in the URL overrides it (nodemailer reads the URL's options last).
   */
  requireTls: boolean;
  /** The URL with the password replaced, safe to log. */
  redacted: string;
}

/**
 * Checks `smtp[s]://user:pass@host:port` and prepares a loggable copy. Throws on anything else:
 * a configuration error that should stop the service at start, not fail every delivery.
 */
export function parseSmarthostUrl(value: string): SmarthostUrl {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new Error('The smarthost URL is not a valid URL (expected smtp[s]://user:pass@host:port)');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') {
    throw new Error(`The smarthost URL must start with smtp:// or smtps://, not ${parsed.protocol}//`);
  }
  if (!parsed.hostname) throw new Error('The smarthost URL has no host');
  const secure = parsed.protocol === 'smtps:';
  const requireTls = !secure && Boolean(parsed.username || parsed.password);
  return { url: value, host: parsed.hostname, secure, requireTls, redacted: redactUrl(value) };
}
