import { MailroomError } from '@mailroom/core';
import type { z } from 'zod';

/** Where the input came from, for messages. */
export type InputPart = 'body' | 'query' | 'path';

/**
 * Parses one part of a request. An absent required field is 422 `missing_required_field`; a
 * present but invalid one is 422 `validation_error`; either way the message names the field.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, part: InputPart): z.output<S> {
  const nul = hasNul(value) ? pathOfNul(value) : null;
  if (nul !== null) {
    // PostgreSQL text cannot hold U+0000; refuse it here rather than fail at the database.
    throw new MailroomError('validation_error', `\`${nul || part}\`: must not contain the NUL character (U+0000)`);
  }
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new MailroomError('validation_error', `The request ${part} is invalid.`);
  const field = formatPath(issue.path);
  if (field === '' && part === 'body') {
    throw new MailroomError('validation_error', 'The request body must be a JSON object.');
  }
  // Rules that need a field among several (e.g. "html or text") mark their issue `missing`.
  const isMissing =
    ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && (issue as { input?: unknown }).input === undefined) ||
    (issue.code === 'custom' && (issue as { params?: { missing?: boolean } }).params?.missing === true);
  if (isMissing) {
    throw new MailroomError('missing_required_field', `Missing required field \`${field}\` in the request ${part}.`);
  }
  const where = field === '' ? `The request ${part}` : `\`${field}\``;
  throw new MailroomError('validation_error', `${where}: ${issue.message}`);
}

/** Whether any string or key holds U+0000; allocation-free, for every request. */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  for (const key in value) {
    if (key.includes('\u0000') || hasNul((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/** The path of the first string (or key) holding U+0000, '' for the value itself, or null. */
function pathOfNul(value: unknown, path: PropertyKey[] = []): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? formatPath(path) : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes('\u0000')) return formatPath(path);
    const found = pathOfNul(inner, [...path, Array.isArray(value) ? Number(key) : key]);
    if (found !== null) return found;
  }
  return null;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    return out === '' ? String(key) : `${out}.${String(key)}`;
  }, '');
}
