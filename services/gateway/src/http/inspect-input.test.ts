import { MailroomError } from '@mailroom/core';
import { camelizeKeys } from './aliases';
import { inspectInput, MAX_INPUT_DEPTH } from './inspect-input';

const nested = (depth: number): unknown => JSON.parse(`${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`);
const refusal = (fn: () => unknown): MailroomError | undefined => {
  try {
    fn();
  } catch (err) {
    return err as MailroomError;
  }
  return undefined;
};

describe('inspectInput', () => {
  test('when a value is nested a million levels deep, then it is refused as validation_error, not a stack overflow', () => {
    const err = refusal(() => inspectInput(nested(500_000), 'body'));
    expect(err).toBeInstanceOf(MailroomError);
    expect(err?.name).toBe('validation_error');
  });

  test('when a value is exactly as deep as allowed, then it passes', () => {
    const value = JSON.parse(`${'['.repeat(MAX_INPUT_DEPTH)}${']'.repeat(MAX_INPUT_DEPTH)}`);
    expect(refusal(() => inspectInput(value, 'body'))).toBeUndefined();
    expect(refusal(() => inspectInput([value], 'body'))?.message).toMatch(/more than 32 levels/);
  });

  test.each([
    [{ to: ['a@b.co', 'x\ud800'] }, '`to[1]`: must be valid Unicode'],
    [{ headers: { 'X-\udc00': 'v' } }, '`headers`: keys must be valid Unicode'],
    [{ a: { b: 'nul\u0000' } }, '`a.b`: must not contain the NUL character'],
    [JSON.parse('{"headers":{"__proto__":"x"}}'), '`headers`: keys must not be "__proto__"'],
    ['\ud800', 'The request body: must be valid Unicode'],
  ])('when %j holds a flaw, then the message names where', (value, message) => {
    expect(refusal(() => inspectInput(value, 'body'))?.message).toContain(message);
  });

  test('when strings are well formed (emoji pairs included), then nothing is refused', () => {
    expect(refusal(() => inspectInput({ subject: 'Hi \ud83d\ude00', data: Array.from({ length: 1000 }, (_, i) => i % 256) }, 'body'))).toBeUndefined();
  });
});

describe('camelizeKeys', () => {
  test('when called on a value deeper than allowed without inspection, then it refuses rather than overflow the stack', () => {
    expect(refusal(() => camelizeKeys(nested(200_000)))?.name).toBe('validation_error');
  });

  test('when nulls mean "not given", then null members go at every depth in the same pass, opaque fields keeping their keys as written', () => {
    const body = { reply_to: null, to: 'a@b.example', attachments: [{ content_type: null, filename: 'a.txt' }], headers: { 'X-Keep_Case': 'v', 'X-Gone': null } };
    expect(camelizeKeys(body, new Set(['headers']), 0, true)).toEqual({ to: 'a@b.example', attachments: [{ filename: 'a.txt' }], headers: { 'X-Keep_Case': 'v' } });
    // Without it, null is a value like any other.
    expect(camelizeKeys(body, new Set(['headers']))).toEqual({ replyTo: null, to: 'a@b.example', attachments: [{ contentType: null, filename: 'a.txt' }], headers: { 'X-Keep_Case': 'v', 'X-Gone': null } });
  });
});
