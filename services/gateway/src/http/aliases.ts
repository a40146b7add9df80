import { isDeepStrictEqual } from 'node:util';
import { MailroomError } from '@mailroom/core';
import { MAX_INPUT_DEPTH } from './inspect-input';

/**
 * Accepts the snake_case spelling of a camelCase field (DESIGN §4), so apps using Resend's SDK
 * can switch by changing the base URL. Both spellings of one field with the same value are one
 * field; with different values they are a 422 naming both (neither is silently dropped).
 * `opaqueKeys` name fields whose own keys are data (such as `headers`) and must stay untouched.
 * With `dropNulls`, every member whose value is `null` is left out as well, at any depth, opaque
 * fields included: for bodies where null means "not given" (sends: some SDKs and serializers
 * write every absent field as null), so a required field given as null is missing, and a null
 * spelling beside a given one is the absent one. One pass.
 */
export function camelizeKeys(value: unknown, opaqueKeys: ReadonlySet<string> = new Set(), depth = 0, dropNulls = false): unknown {
  // Callers bound the depth first (inspectInput); this keeps the recursion safe without them.
  if (depth > MAX_INPUT_DEPTH) throw new MailroomError('validation_error', `The input nests more than ${MAX_INPUT_DEPTH} levels deep.`);
  if (Array.isArray(value)) return value.map((item) => camelizeKeys(item, opaqueKeys, depth + 1, dropNulls));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const camel = key.includes('_') ? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : key;
    if (camel !== key && Object.hasOwn(value, camel) && !(dropNulls && value[camel] === null)) {
      if (!(dropNulls && inner === null) && !isDeepStrictEqual(inner, value[camel])) {
        throw new MailroomError('validation_error', `\`${key}\` and \`${camel}\` are one field, given twice with different values: give one of them.`);
      }
      continue;
    }
    if (dropNulls && inner === null) continue;
    // An opaque field's keys stay as written; with dropNulls only its null members go.
    out[camel] = opaqueKeys.has(camel) ? (dropNulls && isPlainObject(inner) ? withoutNulls(inner) : inner) : camelizeKeys(inner, opaqueKeys, depth + 1, dropNulls);
  }
  return out;
}

function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== null));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
