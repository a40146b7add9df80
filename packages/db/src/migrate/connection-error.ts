import { redactUrl } from '@mailroom/core';
import { MigrateError } from './errors';

function codeOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return messageOf(error.errors[0]);
  if (error instanceof Error && error.message !== '') return error.message;
  return codeOf(error) ?? String(error);
}

/** PostgreSQL's SQLSTATE, or Node's errno code, of a pg error. */
export function errorCode(error: unknown): string | undefined {
  return codeOf(error);
}

/** Turns a pg connection failure into one sentence naming the server without its password. */
export function connectionError(error: unknown, databaseUrl: string): MigrateError {
  const where = redactUrl(databaseUrl);
  const code = codeOf(error);
  const detail = messageOf(error).replace(/\.$/, '');
  if (code === '28P01' || code === '28000') {
    return new MigrateError(`PostgreSQL at ${where} rejected the credentials (${detail}).`);
  }
  return new MigrateError(
    `Cannot connect to PostgreSQL at ${where} (${detail}); start it with \`docker compose up -d postgres redis\`.`,
  );
}
