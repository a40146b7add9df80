/** A field two implementations disagree on, after normalisation. */
export interface Difference {
  field: string;
  ours: unknown;
  python: unknown;
}

/** Fields of one corpus message where a disagreement is accepted, and why. */
export interface AllowedDisagreement {
  message: string;
  fields: string[];
  reason: string;
}

/**
 * The two checks every differential test makes once `found` is filled (in its beforeAll): each
 * message disagrees only where its allow-list entry says, and every entry still names a real
 * disagreement, so the list cannot go stale when either side changes.
 */
export function testAllowedDisagreements(messages: readonly string[], allowed: readonly AllowedDisagreement[], found: ReadonlyMap<string, Difference[]>, verb: string): void {
  test.each([...messages])(`when %s is ${verb} by both, then they agree but for the allowed disagreements`, (message) => {
    const fields = allowed.find((a) => a.message === message)?.fields ?? [];
    expect(found.get(message)?.filter((d) => !fields.includes(d.field))).toEqual([]);
  });

  test('every allowed disagreement is still one, and names a corpus message', () => {
    const stale = allowed.flatMap((a) => a.fields.filter((f) => !(found.get(a.message) ?? []).some((d) => d.field === f)).map((field) => `${a.message} ${field}`));
    expect(stale).toEqual([]);
    expect(new Set(allowed.map((a) => a.message)).size).toBe(allowed.length);
  });
}
