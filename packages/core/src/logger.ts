import pino, { type Logger } from 'pino';
import pinoPretty, { prettyFactory } from 'pino-pretty';

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

// One line per record, the fields every line of a service shares left out.
const PRETTY_OPTIONS = { singleLine: true, ignore: 'pid,hostname,service,name', translateTime: 'SYS:HH:MM:ss.l' } as const;

/**
 * Whether logs should be rendered for people: on a terminal, outside production. Pipes, files,
 * log collectors and tests get one JSON object per line.
 */
export function wantsPrettyLogs(isTerminal: boolean, nodeEnv: string | undefined): boolean {
  return isTerminal && nodeEnv !== 'production';
}

/** Renders one JSON log line as pino-pretty does; lines that are not JSON pass through unchanged. */
export function createLogLinePrettifier(options: { colour: boolean }): (line: string) => string {
  const prettify = prettyFactory({ ...PRETTY_OPTIONS, colorize: options.colour });
  return (line) => (line.startsWith('{') ? prettify(line).trimEnd() : line);
}

/**
 * The root logger of one service; components take `logger.child({ component })`. Human-readable
 * when stdout is a terminal and `nodeEnv` is not production, JSON otherwise.
 */
export function createLogger(options: { service: string; level?: string; nodeEnv?: string; pretty?: boolean }): Logger {
  const pretty = options.pretty ?? wantsPrettyLogs(process.stdout.isTTY === true, options.nodeEnv);
  return pino(
    {
      name: options.service,
      level: options.level ?? 'info',
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { service: options.service },
    },
    pretty ? pinoPretty({ ...PRETTY_OPTIONS, colorize: true, sync: true }) : undefined,
  );
}
