import type { ErrorRegistry } from '@prisma/driver-adapter-utils';

const TRACE_START = /^\s+0: /;
const EXTERNAL_ERROR = /External error id#(\d+)/;
const MIGRATION_NAME = /migration_name="([^"]+)"/;
const NOISE = new Set(['external connector error']);

/**
 * A JavaScript error the adapter threw reaches the engine as "External error id#N"; this returns
 * that original error (say, a MigrateError from the adapter factory) when there is one.
 */
export function unwrapExternalError(error: unknown, registry: ErrorRegistry): unknown {
  const message = error instanceof Error ? error.message : '';
  const id = EXTERNAL_ERROR.exec(message)?.[1];
  if (id === undefined) return error;
  return registry.consumeError(Number(id))?.error ?? error;
}

/**
 * One line for a person: the engine's message without its Rust span trace, naming the
 * migration that failed when the trace says which, and Prisma's error code when it has one.
 */
export function describeEngineError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message.split('\n');
  const traceAt = lines.findIndex((line) => TRACE_START.test(line));
  const detail = (traceAt === -1 ? lines : lines.slice(0, traceAt))
    .map((line) => line.trim())
    .filter((line) => line !== '' && !NOISE.has(line))
    .join(' ')
    .replace(/\.$/, '');
  const migration = MIGRATION_NAME.exec(message)?.[1];
  const code = (error as { code?: unknown } | null)?.code;
  const tag = typeof code === 'string' && /^P\d{4}$/.test(code) ? ` [${code}]` : '';
  return migration === undefined
    ? `The schema engine failed: ${detail}.${tag}`
    : `Migration ${migration} failed: ${detail}.${tag}`;
}
