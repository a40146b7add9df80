import { normalizeSendingDomain } from './sending-domain-name';

describe('normalizeSendingDomain', () => {
  test.each([
    ['Acme.Example', 'acme.example'],
    ['  mail.acme.example. ', 'mail.acme.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['acme.co.uk', 'acme.co.uk'],
  ])('when given %j, then it is stored as %j', (input, name) => {
    expect(normalizeSendingDomain(input)).toEqual({ ok: true, name });
  });

  test.each([
    ['0x7f.1', 'not an IP address'],
    ['0x7f.0.0.1', 'not an IP address'],
    ['example.123', 'top-level domain of letters'],
    ['foo.1com', 'top-level domain of letters'],
    ['foo.x', 'top-level domain of letters'],
    ['under_score.example', 'without underscores'],
    ['-lead.example', 'start nor end with a hyphen'],
    ['a..example', 'without empty labels'],
    ['a@b.example', 'not an address'],
    ['acme', 'at least two labels'],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(30)}.example`, 'at most 229 fit'],
  ])('when given %j, then the reason says what is wrong (%s)', (input, reason) => {
    const result = normalizeSendingDomain(input);
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });

  test('when a name is as long as its records allow, then it is accepted; one octet more is not', () => {
    const fits = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(30)}.example`.slice(-229).replace(/^\./, 'x');
    expect(fits.length).toBe(229);
    expect(normalizeSendingDomain(fits)).toEqual({ ok: true, name: fits });
    expect(normalizeSendingDomain(`y${fits}`).ok).toBe(false);
  });

  test.each(['127.0.0.1', '[::1]', '::1', '10.0.0.1.', 'localhost', 'example', 'co.uk', 'github.io', 'com', 'a..b', '-a.example', 'acme .example', 'acme.example\r\nx', ''])(
    'when given %j, then it is refused with a reason',
    (input) => {
      const result = normalizeSendingDomain(input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason.length).toBeGreaterThan(10);
    },
  );
});
