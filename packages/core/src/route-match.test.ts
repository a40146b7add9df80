import { normalizeRouteMatch, routeCandidates } from './route-match';

describe('route matches', () => {
  test.each([
    ['Support@Acme.Test', 'support@acme.test'],
    ['*@Acme.TEST', '*@acme.test'],
    ['  help+vip@acme.test ', 'help+vip@acme.test'],
    ['*@bücher.example', '*@xn--bcher-kva.example'],
    ['info@acme.test.', 'info@acme.test'],
    ['Ünïcødé@Acme.test', 'ünïcødé@acme.test'],
    ['用户@例子.example', '用户@xn--fsqu00a.example'],
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

  test('an internationalized local part (SMTPUTF8) is routable, compared lower-cased in NFC', () => {
    expect(routeCandidates('Ü+tag@acme.test')).toEqual(['ü+tag@acme.test', 'ü@acme.test', '*@acme.test']);
    // "u" + combining diaeresis is the same address as the precomposed "ü".
    expect(routeCandidates('u\u0308@acme.test')[0]).toBe('ü@acme.test');
    expect(routeCandidates('δοκιμή@παράδειγμα.δοκιμή')).toEqual(['δοκιμή@xn--hxajbheg2az3al.xn--jxalpdlp', '*@xn--hxajbheg2az3al.xn--jxalpdlp']);
  });

  test('a quoted local part is routable: unquoted when it needs no quotes, never split at a +tag', () => {
    expect(routeCandidates('"Info"@acme.test')).toEqual(['info@acme.test', '*@acme.test']);
    expect(routeCandidates('"john doe"@acme.test')).toEqual(['"john doe"@acme.test', '*@acme.test']);
    expect(routeCandidates('"a+b c"@acme.test')).toEqual(['"a+b c"@acme.test', '*@acme.test']);
    expect(routeCandidates('"a\\"q\\\\"@acme.test')).toEqual(['"a\\"q\\\\"@acme.test', '*@acme.test']);
    expect(routeCandidates('"x@y"@acme.test')).toEqual(['"x@y"@acme.test', '*@acme.test']);
  });

  test.each([
    'a\u0000b@acme.test', // a control character
    'a\u2028b@acme.test', // a line separator
    'a\u00a0b@acme.test', // a no-break space
    '"a\nb"@acme.test', // a control character, even quoted
    '"unclosed@acme.test',
    'a"b@acme.test',
    `${'ü'.repeat(33)}@acme.test`, // 66 octets in UTF-8
  ])('the recipient %j is not routable', (input) => {
    expect(routeCandidates(input)).toEqual([]);
  });
});
