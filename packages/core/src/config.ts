import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { z } from 'zod';
import { EXPECTED_VALUES, invalidVariableMessage } from './config-messages';

/**
 * Raised when an environment variable is missing or malformed. The message names the variable
 * and what a valid value looks like; it never contains a secret or a URL's password.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** DATABASE_STATEMENT_TIMEOUT_MS's default (ms), also the pools' when they are made without a config. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** What maintenance statements (the stats rollup, retention) may run at least, in ms: pages of thousands of rows, not requests. */
export const MAINTENANCE_STATEMENT_TIMEOUT_MS = 600_000;

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
// z.coerce.number() reads "" as 0: an empty variable means "use the default" instead.
const emptyMeansDefault = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema);
const port = z.coerce.number().int().min(0).max(65535);
const seconds = z.coerce.number().int().min(0);
/** "a,b,c" seconds between attempts (webhooks: N entries mean 1 + N attempts; SMTP retries last their sum). */
const schedule = z
  .string()
  .trim()
  .transform((s, ctx) => {
    if (s === '') return [] as number[];
    const parts = s.split(',').map((p) => p.trim());
    const nums = parts.map(Number);
    if (nums.some((n, i) => parts[i] === '' || !Number.isInteger(n) || n < 0)) {
      ctx.addIssue({ code: 'custom', message: 'not a comma list of whole seconds' });
      return z.NEVER;
    }
    return nums;
  });
/** A URL with a host whose scheme matches, e.g. `serviceUrl(/^rediss?:$/)`. */
const serviceUrl = (scheme: RegExp) =>
  z.string().refine((value) => {
    try {
      const url = new URL(value);
      return scheme.test(url.protocol) && url.hostname !== '';
    } catch {
      return false;
    }
  });
/** `ip`, `ipv4:port` or `[ipv6]:port`: what `Resolver.setServers` takes. */
function isDnsServer(server: string): boolean {
  const match = /^\[([^\]]+)\]:(\d{1,5})$/.exec(server) ?? /^([^:]+):(\d{1,5})$/.exec(server);
  if (!match) return isIP(server) !== 0;
  return isIP(match[1]!) !== 0 && Number(match[2]) <= 65535;
}
const httpUrl = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));
// A DNS host name (letters, digits, hyphens, dots), as published in an MX record.
const hostName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(?:\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.?$/)
  .transform((h) => h.replace(/\.$/, ''));
// SPF mechanisms (RFC 7208 §5) other than all: ip4:, ip6:, a, mx, include:, exists:, with a qualifier.
const SPF_MECHANISM = /^[+?~-]?(?:ip4:[0-9.]+(?:\/\d{1,2})?|ip6:[0-9a-f:.]+(?:\/\d{1,3})?|a(?::[^\s:]+)?|mx(?::[^\s:]+)?|include:[^\s:]+|exists:[^\s:]+)$/i;
const spfMechanisms = z
  .string()
  .trim()
  .transform((s) => s.split(/\s+/).filter(Boolean))
  .refine((parts) => parts.length > 0 && parts.length <= 10 && parts.every((p) => SPF_MECHANISM.test(p)))
  .transform((parts) => parts.join(' '));
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/**
 * One entry per variable of DESIGN §3, with its default. Parsed once at start. Error messages
 * come from config-messages.ts, which says what a valid value of each variable looks like.
 */
const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: serviceUrl(/^postgres(ql)?:$/).default('postgresql://postgres@127.0.0.1:5432/mailroom'),
  // The longest one statement of the services may run, in ms (an extension of DESIGN §3): past it
  // PostgreSQL cancels it, and a server that does not answer at all is given up on soon after, so
  // a request answers 503 rather than wait for ever. Maintenance (stats rollup, retention) gets
  // at least MAINTENANCE_STATEMENT_TIMEOUT_MS; migrations have no limit.
  DATABASE_STATEMENT_TIMEOUT_MS: emptyMeansDefault(z.coerce.number().int().min(1_000).max(2_147_483_647).default(DEFAULT_STATEMENT_TIMEOUT_MS)),
  REDIS_URL: serviceUrl(/^rediss?:$/).default('redis://127.0.0.1:6379'),
  // BullMQ and Redis key prefix; "{mailroom}" keeps every key in one Redis Cluster slot.
  QUEUE_PREFIX: z.string().min(1).regex(/^[^\s:]+$/).default('mailroom'),
  API_PORT: emptyMeansDefault(port.default(3000)),
  TRACKING_PORT: emptyMeansDefault(port.default(3001)),
  SMTP_PORT: emptyMeansDefault(port.default(2525)),
  // Unset: http://localhost:<API_PORT> and http://localhost:<TRACKING_PORT>.
  PUBLIC_API_URL: optional(httpUrl),
  TRACKING_BASE_URL: optional(httpUrl),
  // Smarthost smtp[s]://user:pass@host:port; unset means direct MX delivery.
  OUTBOUND_SMTP_URL: optional(serviceUrl(/^smtps?:$/)),
  MX_PORT: emptyMeansDefault(port.default(25)),
  DNS_SERVERS: optional(
    z
      .string()
      .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
      .refine((servers) => servers.length > 0 && servers.every(isDnsServer)),
  ),
  ALLOW_PRIVATE_NETWORKS: bool.default(false),
  BOUNCE_DOMAIN: z.string().min(1).default('bounces.localhost'),
  SECRET_KEY: optional(z.string().min(32)),
  SESSION_TTL_SECONDS: emptyMeansDefault(seconds.min(60).default(43200)),
  ADMIN_EMAIL: optional(z.email()),
  ADMIN_PASSWORD: optional(z.string().min(8)),
  // Unset: open while no user exists, then closed.
  ALLOW_SIGNUP: optional(bool),
  WEBHOOK_RETRY_SCHEDULE: schedule.default([5, 300, 1800, 7200, 18000, 36000, 36000]),
  WEBHOOK_TIMEOUT_SECONDS: emptyMeansDefault(seconds.min(1).default(15)),
  // Deliveries in flight to one endpoint at once, per dispatcher process (DESIGN §3).
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: emptyMeansDefault(z.coerce.number().int().min(1).max(1000).default(10)),
  SMTP_RETRY_SCHEDULE: schedule.default([
    300, 390, 507, 659, 857, 1114, 1448, 1882, 2447, 3181, 4136, 5376, 6989, 9086, 11812, 15356, 19962,
  ]),
  LEASE_SECONDS: emptyMeansDefault(seconds.min(1).default(300)),
  RECONCILE_INTERVAL_SECONDS: emptyMeansDefault(seconds.min(1).default(60)),
  RATE_LIMIT_PER_SECOND: emptyMeansDefault(seconds.default(50)),
  // Request body bytes one gateway process holds at once; past it, 503. At least the largest body limit (checked by the gateway).
  API_MAX_BUFFERED_BYTES: emptyMeansDefault(z.coerce.number().int().min(1024).default(67108864)),
  // Emails one sender process works on at once (an extension of DESIGN §3).
  SENDER_CONCURRENCY: emptyMeansDefault(z.coerce.number().int().min(1).max(1000).default(20)),
  // Sign-in and sign-up attempts per client IP per minute (an extension of DESIGN §3).
  LOGIN_RATE_LIMIT_PER_MINUTE: emptyMeansDefault(z.coerce.number().int().min(1).default(10)),
  GATEWAY_TRUST_PROXY: bool.default(false),
  METRICS_TOKEN: optional(z.string().min(1)),
  INBOUND_MAX_MESSAGE_BYTES: emptyMeansDefault(z.coerce.number().int().min(1024).default(26214400)),
  // Message bytes one MX process holds at once (received and not yet committed); past it, 452 4.3.1.
  INBOUND_MAX_BUFFERED_BYTES: emptyMeansDefault(z.coerce.number().int().min(1024).default(134217728)),
  SMTP_TLS_CERT_FILE: optional(z.string().min(1)),
  SMTP_TLS_KEY_FILE: optional(z.string().min(1)),
  SMTP_PROXY_PROTOCOL: bool.default(false),
  // Extensions of DESIGN §3 for the MX: limits per server process and how long mail is kept.
  INBOUND_RETENTION_DAYS: emptyMeansDefault(z.coerce.number().int().min(1).default(30)),
  // Sent emails (content, recipients, attachments, timeline), other events and the webhook log are
  // deleted this long after; at least 15, as recover reaches 14 days back.
  EMAIL_RETENTION_DAYS: emptyMeansDefault(z.coerce.number().int().min(15).default(30)),
  SMTP_MAX_CONNECTIONS: emptyMeansDefault(z.coerce.number().int().min(1).default(1000)),
  SMTP_MAX_CONNECTIONS_PER_IP: emptyMeansDefault(z.coerce.number().int().min(1).default(20)),
  SMTP_IDLE_TIMEOUT_SECONDS: emptyMeansDefault(seconds.min(1).default(300)),
  // Received messages one inbound process parses and authenticates at once.
  INBOUND_CONCURRENCY: emptyMeansDefault(z.coerce.number().int().min(1).max(100).default(4)),
  // What an inbound-smtp process runs: the MX and the processing after the 250 (all), or one of them.
  INBOUND_ROLE: z.enum(['all', 'smtp', 'processing']).default('all'),
  // Port of /healthz, /readyz and /metrics for services without an HTTP port of their own
  // (sender, inbound-smtp, webhook-dispatcher); unset = not served.
  OPS_PORT: optional(port),
  // The host name this installation's SMTP speaks as (Postfix's myhostname): the MX's 220 greeting,
  // the sender's EHLO, and the Authentication-Results of received mail; unset = the machine's.
  SMTP_HOSTNAME: optional(hostName),
  // Sending domains (extensions of DESIGN §3). The public host name of the MX (inbound-smtp) that
  // each domain's return-path subdomain publishes as its MX record, so bounces reach us.
  DOMAIN_MX_HOST: hostName.default('localhost'),
  // SPF mechanisms published for each return-path subdomain: the sending IPs or the smarthost's include.
  DOMAIN_SPF_MECHANISMS: spfMechanisms.default('ip4:127.0.0.1'),
  // Label of the return-path subdomain: mail from acme.example bounces to <label>.acme.example.
  RETURN_PATH_LABEL: z.string().trim().toLowerCase().regex(/^(?!-)[a-z0-9-]{1,63}(?<!-)$/).default('bounces'),
  // Sends and routes only on domains verified in the project; unset: true when NODE_ENV=production.
  REQUIRE_VERIFIED_DOMAINS: optional(bool),
  // A click this many seconds after its recipient's delivery (or before it) is counted as a link scanner's (is_bot).
  TRACKING_MIN_CLICK_SECONDS: emptyMeansDefault(seconds.max(3600).default(5)),
  // The tracking service takes the client address from the last X-Forwarded-For entry (set behind an ingress that appends it).
  TRACKING_TRUST_PROXY: bool.default(false),
});

type Env = z.output<typeof envSchema>;

/** Mailroom's configuration, camelCased from the environment and frozen. */
export interface Config {
  nodeEnv: Env['NODE_ENV'];
  logLevel: Env['LOG_LEVEL'];
  databaseUrl: string;
  /** DATABASE_STATEMENT_TIMEOUT_MS. */
  databaseStatementTimeoutMs: number;
  redisUrl: string;
  queuePrefix: string;
  apiPort: number;
  trackingPort: number;
  smtpPort: number;
  publicApiUrl: string;
  trackingBaseUrl: string;
  outboundSmtpUrl: string | undefined;
  mxPort: number;
  dnsServers: string[] | undefined;
  allowPrivateNetworks: boolean;
  bounceDomain: string;
  secretKey: string | undefined;
  sessionTtlSeconds: number;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  allowSignup: boolean | undefined;
  webhookRetrySchedule: number[];
  webhookTimeoutSeconds: number;
  webhookConcurrencyPerEndpoint: number;
  smtpRetrySchedule: number[];
  leaseSeconds: number;
  reconcileIntervalSeconds: number;
  rateLimitPerSecond: number;
  apiMaxBufferedBytes: number;
  senderConcurrency: number;
  loginRateLimitPerMinute: number;
  /** Take the client address from the last X-Forwarded-For entry (behind an ingress). */
  gatewayTrustProxy: boolean;
  metricsToken: string | undefined;
  inboundMaxMessageBytes: number;
  inboundMaxBufferedBytes: number;
  emailRetentionDays: number;
  smtpTlsCertFile: string | undefined;
  smtpTlsKeyFile: string | undefined;
  smtpProxyProtocol: boolean;
  inboundRetentionDays: number;
  smtpMaxConnections: number;
  smtpMaxConnectionsPerIp: number;
  smtpIdleTimeoutSeconds: number;
  inboundConcurrency: number;
  inboundRole: Env['INBOUND_ROLE'];
  opsPort: number | undefined;
  /** SMTP_HOSTNAME, or the machine's host name (os.hostname()) when unset. */
  smtpHostname: string;
  domainMxHost: string;
  domainSpfMechanisms: string;
  returnPathLabel: string;
  requireVerifiedDomains: boolean;
  trackingMinClickSeconds: number;
  trackingTrustProxy: boolean;
}

/**
 * Reads and validates the environment once. Throws ConfigError naming every bad variable, one
 * per line. Only this module reads process.env.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Readonly<Config> {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const variables = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? 'environment')))];
    throw new ConfigError(variables.map((variable) => invalidVariableMessage(variable, env[variable])).join('\n'));
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && !e.SECRET_KEY) {
    throw new ConfigError(`Invalid SECRET_KEY: required when NODE_ENV=production; expected ${EXPECTED_VALUES.SECRET_KEY}.`);
  }
  // Their defaults fit one machine only: every sending domain would be told to publish `MX
  // localhost` and `v=spf1 ip4:127.0.0.1 -all`, so no bounce would come back and SPF would fail.
  for (const variable of ['DOMAIN_MX_HOST', 'DOMAIN_SPF_MECHANISMS'] as const) {
    if (e.NODE_ENV === 'production' && !env[variable]) {
      throw new ConfigError(`Invalid ${variable}: required when NODE_ENV=production (the records each sending domain publishes); expected ${EXPECTED_VALUES[variable]}.`);
    }
  }
  if ((e.ADMIN_EMAIL === undefined) !== (e.ADMIN_PASSWORD === undefined)) {
    throw new ConfigError('Invalid ADMIN_PASSWORD: ADMIN_EMAIL and ADMIN_PASSWORD must be set together.');
  }
  if (e.INBOUND_MAX_BUFFERED_BYTES < e.INBOUND_MAX_MESSAGE_BYTES) {
    throw new ConfigError(
      `Invalid INBOUND_MAX_BUFFERED_BYTES: it must be at least INBOUND_MAX_MESSAGE_BYTES (${e.INBOUND_MAX_MESSAGE_BYTES}), or no message of the largest size could ever be received.`,
    );
  }
  if ((e.SMTP_TLS_CERT_FILE === undefined) !== (e.SMTP_TLS_KEY_FILE === undefined)) {
    throw new ConfigError('Invalid SMTP_TLS_KEY_FILE: SMTP_TLS_CERT_FILE and SMTP_TLS_KEY_FILE must be set together.');
  }
  return Object.freeze({
    nodeEnv: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    databaseUrl: e.DATABASE_URL,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
    queuePrefix: e.QUEUE_PREFIX,
    apiPort: e.API_PORT,
    trackingPort: e.TRACKING_PORT,
    smtpPort: e.SMTP_PORT,
    publicApiUrl: e.PUBLIC_API_URL ?? `http://localhost:${e.API_PORT}`,
    trackingBaseUrl: e.TRACKING_BASE_URL ?? `http://localhost:${e.TRACKING_PORT}`,
    outboundSmtpUrl: e.OUTBOUND_SMTP_URL,
    mxPort: e.MX_PORT,
    dnsServers: e.DNS_SERVERS,
    allowPrivateNetworks: e.ALLOW_PRIVATE_NETWORKS,
    bounceDomain: e.BOUNCE_DOMAIN,
    secretKey: e.SECRET_KEY,
    sessionTtlSeconds: e.SESSION_TTL_SECONDS,
    adminEmail: e.ADMIN_EMAIL,
    adminPassword: e.ADMIN_PASSWORD,
    allowSignup: e.ALLOW_SIGNUP,
    webhookRetrySchedule: Object.freeze(e.WEBHOOK_RETRY_SCHEDULE) as number[],
    webhookTimeoutSeconds: e.WEBHOOK_TIMEOUT_SECONDS,
    webhookConcurrencyPerEndpoint: e.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
    smtpRetrySchedule: Object.freeze(e.SMTP_RETRY_SCHEDULE) as number[],
    leaseSeconds: e.LEASE_SECONDS,
    reconcileIntervalSeconds: e.RECONCILE_INTERVAL_SECONDS,
    rateLimitPerSecond: e.RATE_LIMIT_PER_SECOND,
    apiMaxBufferedBytes: e.API_MAX_BUFFERED_BYTES,
    senderConcurrency: e.SENDER_CONCURRENCY,
    loginRateLimitPerMinute: e.LOGIN_RATE_LIMIT_PER_MINUTE,
    gatewayTrustProxy: e.GATEWAY_TRUST_PROXY,
    metricsToken: e.METRICS_TOKEN,
    inboundMaxMessageBytes: e.INBOUND_MAX_MESSAGE_BYTES,
    inboundMaxBufferedBytes: e.INBOUND_MAX_BUFFERED_BYTES,
    emailRetentionDays: e.EMAIL_RETENTION_DAYS,
    smtpTlsCertFile: e.SMTP_TLS_CERT_FILE,
    smtpTlsKeyFile: e.SMTP_TLS_KEY_FILE,
    smtpProxyProtocol: e.SMTP_PROXY_PROTOCOL,
    inboundRetentionDays: e.INBOUND_RETENTION_DAYS,
    smtpMaxConnections: e.SMTP_MAX_CONNECTIONS,
    smtpMaxConnectionsPerIp: e.SMTP_MAX_CONNECTIONS_PER_IP,
    smtpIdleTimeoutSeconds: e.SMTP_IDLE_TIMEOUT_SECONDS,
    inboundConcurrency: e.INBOUND_CONCURRENCY,
    inboundRole: e.INBOUND_ROLE,
    opsPort: e.OPS_PORT,
    smtpHostname: e.SMTP_HOSTNAME ?? hostname(),
    domainMxHost: e.DOMAIN_MX_HOST,
    domainSpfMechanisms: e.DOMAIN_SPF_MECHANISMS,
    returnPathLabel: e.RETURN_PATH_LABEL,
    requireVerifiedDomains: e.REQUIRE_VERIFIED_DOMAINS ?? e.NODE_ENV === 'production',
    trackingMinClickSeconds: e.TRACKING_MIN_CLICK_SECONDS,
    trackingTrustProxy: e.TRACKING_TRUST_PROXY,
  });
}
