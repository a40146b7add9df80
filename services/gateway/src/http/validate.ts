import { MailroomError } from '@mailroom/core';
import type { z } from 'zod';
import { formatPath } from './field-path';
import { inspectInput } from './inspect-input';

/** Where the input came from, for messages. */
export type InputPart = 'body' | 'query' | 'path';

/**
 * Parses one part of a request. An absent required field is 422 `missing_required_field`; a
 * present but invalid one is 422 `validation_error`; either way the message names the field.
 * A path parameter that cannot be valid is 404 `not_found`: the path names nothing.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  part: InputPart,
  /** Applied after the input is inspected and before the schema, such as snake_case aliasing. */
  prepare?: (value: unknown) => unknown,
): z.output<S> {
  if (part === 'path') return parsePath(schema, value);
  inspectInput(value, part);
  if (part === 'query') refuseRepeatedParameters(schema, value);
  const result = schema.safeParse(prepare ? prepare(value) : value, { reportInput: true });
  if (result.success) return result.data;
  const issue = innermostIssue(result.error.issues[0]);
  if (!issue) throw new MailroomError('validation_error', `The request ${part} is invalid.`);
  const field = formatPath(issue.path);
  if (field === '' && issue.code === 'invalid_type' && issue.expected === 'object') {
    throw new MailroomError('validation_error', `The request ${part} must be a JSON object.`);
  }
  // An absent enum (`invalid_value`) is missing too, like an absent string.
  // Rules that need a field among several (e.g. "html or text") mark their issue `missing`.
  const isMissing =
    ((issue.code === 'invalid_type' || issue.code === 'invalid_union' || issue.code === 'invalid_value') && (issue as { input?: unknown }).input === undefined) ||
    (issue.code === 'custom' && (issue as { params?: { missing?: boolean } }).params?.missing === true);
  if (isMissing) {
    throw new MailroomError('missing_required_field', `Missing required field \`${field}\` in the request ${part}.`);
  }
  const where = field === '' ? `The request ${part}` : `\`${field}\``;
  throw new MailroomError('validation_error', `${where}: ${issue.message}`);
}

/** Path parameters: one that cannot be valid (too long, a NUL, the wrong form) names nothing, so 404 as a missing resource. */
function parsePath<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  let result: z.ZodSafeParseResult<z.output<S>> | null = null;
  try {
    inspectInput(value, 'path');
    result = schema.safeParse(value);
  } catch {
    // inspectInput's refusal: the same answer.
  }
  if (result?.success) return result.data;
  throw new MailroomError('not_found', 'Nothing is at this path: a path parameter names nothing this API gives out.');
}

/**
 * For a value that matched none of a union's options ("a mailbox or an array of them"), the
 * issue of the option whose type it has, so the message names the exact item and what is
 * wrong with it rather than "Invalid input".
 */
function innermostIssue(issue: z.core.$ZodIssue | undefined): z.core.$ZodIssue | undefined {
  let current = issue;
  while (current?.code === 'invalid_union' && current.errors.length > 0) {
    const branch = current.errors.find((issues) => issues[0] && !(issues[0].code === 'invalid_type' && issues[0].path.length === 0));
    const inner = branch?.[0];
    if (!inner) break;
    current = { ...inner, path: [...current.path, ...inner.path] };
  }
  return current;
}

/**
 * `?limit=1&limit=2` reaches us as an array, and no query parameter takes several values:
 * which one was meant is a guess, so say so rather than "expected number, received NaN".
 * Parameters the route does not take stay ignored, repeated or not.
 */
function refuseRepeatedParameters(schema: z.ZodType, query: unknown): void {
  if (query === null || typeof query !== 'object') return;
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  for (const [name, value] of Object.entries(query)) {
    if (!Array.isArray(value) || (shape && !(name in shape))) continue;
    throw new MailroomError('validation_error', `\`${name}\`: must be given once in the query.`);
  }
}
