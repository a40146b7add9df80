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

  test.each(['127.0.0.1', '[::1]', '::1', '10.0.0.1.', 'localhost', 'example', 'co.uk', 'github.io', 'com', 'a..b', '-a.example', 'acme .example', 'acme.example\r\nx', ''])(
    'when given %j, then it is refused with a reason',
    (input) => {
      const result = normalizeSendingDomain(input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason.length).toBeGreaterThan(10);
    },
  );
});
