import { MailroomError } from '@mailroom/core';
import { formatPath } from './field-path';
import type { InputPart } from './validate';

/**
 * Deeper than any request Mailroom takes (a send is at most 4 levels: body, attachments, one
 * attachment, its Buffer form's data). The bound is checked before anything recursive
 * (snake_case aliasing, zod) sees the value, so no body can exhaust the stack.
 */
export const MAX_INPUT_DEPTH = 32;

// Node 20 has it; the ES2023 typings this workspace compiles against do not.
type WellFormedString = string & { isWellFormed(): boolean };

interface Frame {
  value: object;
  depth: number;
  key: PropertyKey;
  parent: Frame | null;
}

/**
 * Refuses, with 422 `validation_error` naming the field, what no endpoint can take and the
 * schemas would not catch (or would hit first in PostgreSQL or the stack): nesting deeper than
 * {@link MAX_INPUT_DEPTH}; U+0000 (PostgreSQL text cannot hold it); a lone UTF-16 surrogate
 * (not Unicode, so not storable as UTF-8); a `__proto__` key, which JSON.parse keeps as data
 * but any plain assignment would drop silently. Keys are checked like strings.
 *
 * One iterative pass with no allocation per string: it runs on every request, and sends
 * can be 40 MB.
 */
export function inspectInput(value: unknown, part: InputPart): void {
  const problem = stringProblem(value);
  if (problem) throw refusal(part, '', problem);
  if (value === null || typeof value !== 'object') return;
  const stack: Frame[] = [{ value, depth: 1, key: '', parent: null }];
  const visit = (frame: Frame, key: string | number, inner: unknown) => {
    const innerProblem = stringProblem(inner);
    if (innerProblem) throw refusal(part, pathOf({ value: frame.value, depth: 0, key, parent: frame }), innerProblem);
    if (inner !== null && typeof inner === 'object') stack.push({ value: inner, depth: frame.depth + 1, key, parent: frame });
  };
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    if (frame.depth > MAX_INPUT_DEPTH) {
      throw new MailroomError('validation_error', `The request ${part} nests objects and arrays more than ${MAX_INPUT_DEPTH} levels deep.`);
    }
    if (Array.isArray(frame.value)) {
      // By index: an attachment's Buffer form can hold millions of numbers.
      const items = frame.value as unknown[];
      for (let i = 0; i < items.length; i++) visit(frame, i, items[i]);
      continue;
    }
    const record = frame.value as Record<string, unknown>;
    for (const key in record) {
      const keyProblem = key === '__proto__' ? 'must not be "__proto__"' : stringProblem(key);
      if (keyProblem) throw refusal(part, pathOf(frame), `keys ${keyProblem}`);
      visit(frame, key, record[key]);
    }
  }
}

function stringProblem(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!(value as WellFormedString).isWellFormed()) return 'must be valid Unicode, without a lone UTF-16 surrogate such as \\ud800';
  return null;
}

function refusal(part: InputPart, field: string, problem: string): MailroomError {
  return new MailroomError('validation_error', field === '' ? `The request ${part}: ${problem}.` : `\`${field}\`: ${problem}.`);
}

/** `a.b[0].c` for a frame; the root frame is ''. */
function pathOf(frame: Frame): string {
  const keys: PropertyKey[] = [];
  for (let f: Frame | null = frame; f?.parent; f = f.parent) keys.unshift(f.key);
  return formatPath(keys);
}
