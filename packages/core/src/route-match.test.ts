import { normalizeRouteMatch, routeCandidates } from './route-match';

describe('route matches', () => {
  test.each([
    ['Support@Acme.Test', 'support@acme.test'],
    ['*@Acme.TEST', '*@acme.test'],
    ['  help+vip@acme.test ', 'help+vip@acme.test'],
    ['*@bücher.example', '*@xn--bcher-kva.example'],
    ['info@acme.test.', 'info@acme.test'],
  ])('%j is stored as %j', (input, stored) => {
    expect(normalizeRouteMatch(input)).toBe(stored);
  });

  test.each(['', '*', '*@', 'acme.test', '@acme.test', 'a@b', 'a b@acme.test', '"q"@acme.test', '*@-bad.test', 'a@@acme.test', `${'a'.repeat(65)}@acme.test`, '**@acme.test', 'a@acme.test\r\nx', 'a@acme\t.test', '*@ac me.test'])(
    '%j is refused',
    (input) => {
      expect(normalizeRouteMatch(input)).toBeNull();
    },
  );

  test('a recipient tries its address, then without the +tag, then its domain', () => {
    expect(routeCandidates('Help+Order-7@Acme.test')).toEqual(['help+order-7@acme.test', 'help@acme.test', '*@acme.test']);
    expect(routeCandidates('info@acme.test')).toEqual(['info@acme.test', '*@acme.test']);
    expect(routeCandidates('+x@acme.test')).toEqual(['+x@acme.test', '*@acme.test']);
    expect(routeCandidates('not an address')).toEqual([]);
  });
});
