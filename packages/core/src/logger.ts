import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths that may carry secrets; pino replaces their values before anything is written. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-service-session"]',
  'req.headers.cookie',
  '*.password',
  '*.token',
  '*.secret',
  '*.sessionToken',
  '*.secretKey',
];

/** The root logger of one service; components take `logger.child({ component })`. */
export function createLogger(options: { service: string; level?: string }): Logger {
  return pino({
    name: options.service,
    level: options.level ?? 'info',
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { service: options.service },
  });
}
