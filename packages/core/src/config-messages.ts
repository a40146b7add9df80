/**
 * What a valid value of each variable looks like, for configuration errors people can act on,
 * and how a bad value may be shown without leaking a secret.
 */

const PORT = 'a port number from 0 to 65535';
const BOOLEAN = 'true or false';
const SCHEDULE = 'a comma list of whole seconds, such as "5,300,1800"';

export const EXPECTED_VALUES: Record<string, string> = {
  NODE_ENV: 'one of development, test, production',
  LOG_LEVEL: 'one of fatal, error, warn, info, debug, trace, silent',
  DATABASE_URL: 'a postgresql:// URL, such as postgresql://user:password@127.0.0.1:5432/mailroom',
  DATABASE_STATEMENT_TIMEOUT_MS: 'a whole number of milliseconds, at least 1000, such as 30000',
  REDIS_URL: 'a redis:// or rediss:// URL, such as redis://127.0.0.1:6379',
  QUEUE_PREFIX: 'a prefix without spaces or colons, such as mailroom (or {mailroom} on Redis Cluster)',
  API_PORT: PORT,
  TRACKING_PORT: PORT,
  SMTP_PORT: PORT,
  MX_PORT: PORT,
  PUBLIC_API_URL: 'an http:// or https:// URL, such as https://mail.example.com',
  TRACKING_BASE_URL: 'an http:// or https:// URL, such as https://track.example.com',
  OUTBOUND_SMTP_URL: 'an smtp:// or smtps:// URL, such as smtps://user:password@smtp.example.com:465',
  DNS_SERVERS: 'a comma list of ip[:port], such as 1.1.1.1,8.8.8.8:53',
  ALLOW_PRIVATE_NETWORKS: BOOLEAN,
  ALLOW_SIGNUP: BOOLEAN,
  BOUNCE_DOMAIN: 'a domain name, such as bounces.example.com',
  SECRET_KEY: 'a random string of at least 32 characters (for example from `openssl rand -base64 48`)',
  SESSION_TTL_SECONDS: 'a whole number of seconds, at least 60',
  ADMIN_EMAIL: 'an email address, such as admin@example.com',
  ADMIN_PASSWORD: 'a password of at least 8 characters',
  WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
  SMTP_RETRY_SCHEDULE: SCHEDULE,
  WEBHOOK_TIMEOUT_SECONDS: 'a whole number of seconds, at least 1',
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: 'a whole number from 1 to 1000',
  LEASE_SECONDS: 'a whole number of seconds, at least 1',
  RECONCILE_INTERVAL_SECONDS: 'a whole number of seconds, at least 1',
  RATE_LIMIT_PER_SECOND: 'a whole number of requests per second (0 turns the limit off)',
  API_MAX_BUFFERED_BYTES: 'a whole number of bytes, at least the largest request body (40 MB)',
  SENDER_CONCURRENCY: 'a whole number from 1 to 1000',
  LOGIN_RATE_LIMIT_PER_MINUTE: 'a whole number of attempts per minute, at least 1',
  GATEWAY_TRUST_PROXY: BOOLEAN,
  METRICS_TOKEN: 'a non-empty token',
  INBOUND_MAX_MESSAGE_BYTES: 'a whole number of bytes, at least 1024',
  INBOUND_MAX_BUFFERED_BYTES: 'a whole number of bytes, at least 1024 and at least INBOUND_MAX_MESSAGE_BYTES',
  SMTP_TLS_CERT_FILE: 'the path of a PEM certificate file',
  SMTP_TLS_KEY_FILE: 'the path of a PEM private key file',
  SMTP_PROXY_PROTOCOL: BOOLEAN,
  INBOUND_RETENTION_DAYS: 'a whole number of days, at least 1',
  EMAIL_RETENTION_DAYS: 'a whole number of days, at least 15',
  SMTP_MAX_CONNECTIONS: 'a whole number of connections, at least 1',
  SMTP_MAX_CONNECTIONS_PER_IP: 'a whole number of connections, at least 1',
  SMTP_IDLE_TIMEOUT_SECONDS: 'a whole number of seconds, at least 1',
  INBOUND_CONCURRENCY: 'a whole number from 1 to 100',
  INBOUND_ROLE: 'one of all, smtp, processing',
  OPS_PORT: PORT,
  SMTP_HOSTNAME: 'a host name, such as mail.example.com',
  DOMAIN_MX_HOST: 'a host name, such as mx.mail.example.com',
  DOMAIN_SPF_MECHANISMS: 'SPF mechanisms separated by spaces, such as "ip4:192.0.2.10 include:_spf.example.net"',
  RETURN_PATH_LABEL: 'one DNS label (letters, digits, hyphens), such as bounces',
  REQUIRE_VERIFIED_DOMAINS: BOOLEAN,
  TRACKING_MIN_CLICK_SECONDS: 'a whole number of seconds from 0 to 3600',
  TRACKING_TRUST_PROXY: BOOLEAN,
};

// Never echoed, not even in part.
const SECRET_VARIABLES = new Set(['SECRET_KEY', 'ADMIN_PASSWORD', 'METRICS_TOKEN']);
// Echoed without the password they may carry.
const URL_VARIABLES = new Set(['DATABASE_URL', 'REDIS_URL', 'OUTBOUND_SMTP_URL', 'PUBLIC_API_URL', 'TRACKING_BASE_URL']);
const MAX_SHOWN = 100;

/** "Invalid API_PORT: expected a port number from 0 to 65535 (got "abc")." */
export function invalidVariableMessage(variable: string, value: string | undefined): string {
  const expected = EXPECTED_VALUES[variable] ?? 'a valid value';
  return `Invalid ${variable}: expected ${expected} (${describeValue(variable, value)}).`;
}

/** The bad value as it may be printed: secrets are never shown, URLs lose their password. */
function describeValue(variable: string, value: string | undefined): string {
  if (value === undefined || value === '') return 'got nothing';
  if (SECRET_VARIABLES.has(variable)) return `got a value of ${value.length} characters, not shown`;
  const shown = URL_VARIABLES.has(variable) ? withoutPassword(value) : value;
  return `got ${JSON.stringify(shown.length > MAX_SHOWN ? `${shown.slice(0, MAX_SHOWN)}…` : shown)}`;
}

/**
 * A URL with its password and password-like query parameters masked. Done on the text rather
 * than through URL parsing, because the values worth masking are exactly the ones that fail
 * to parse: everything between the scheme and the last "@" is treated as user information (a
 * password with a raw "@" or "#" in it included). The one rule for every message and log line.
 */
export function withoutPassword(value: string): string {
  let shown = value.replace(SECRET_PARAMETER, '$1***');
  const at = shown.lastIndexOf('@');
  if (at === -1) return shown;
  const scheme = /^[a-z][a-z0-9+.-]*:(\/\/)?/i.exec(shown)?.[0] ?? '';
  const userInfo = shown.slice(scheme.length, at);
  const colon = userInfo.indexOf(':');
  // A user name alone (`postgres@host`) carries no password.
  if (colon === -1 && !userInfo.includes('/')) return shown;
  const user = colon > 0 && !userInfo.slice(0, colon).includes('/') ? userInfo.slice(0, colon + 1) : '';
  shown = `${scheme}${user}***${shown.slice(at)}`;
  return shown;
}

// A query parameter such as `password=` or `sslkey=`: its value is masked.
const SECRET_PARAMETER = /([?&;][^=&;#]*(?:pass|secret|token|key)[^=&;#]*=)[^&;#]*/gi;
