import { normalizeDomain, normalizeRouteMatch, routeCandidates } from './route-match';

describe('route matches', () => {
  test.each([
    ['Support@Acme.Test', 'support@acme.test'],
    ['*@Acme.TEST', '*@acme.test'],
    ['  help+vip@acme.test ', 'help+vip@acme.test'],
    ['*@bücher.example', '*@xn--bcher-kva.example'],
    ['info@acme.test.', 'info@acme.test'],
    ['Ünïcødé@Acme.test', 'ünïcødé@acme.test'],
    ['用户@例子.example', '用户@xn--fsqu00a.example'],
    // Longer than RFC 5321's 64-octet local part, as reply-by-mail tokens are; 254 octets in all at most.
    [`Reply+${'T'.repeat(100)}@acme.test`, `reply+${'t'.repeat(100)}@acme.test`],
    [`${'a'.repeat(244)}@acme.test`, `${'a'.repeat(244)}@acme.test`],
  ])('%j is stored as %j', (input, stored) => {
    expect(normalizeRouteMatch(input)).toBe(stored);
  });

  test.each(['', '*', '*@', 'acme.test', '@acme.test', 'a@b', 'a b@acme.test', '"q"@acme.test', '*@-bad.test', 'a@@acme.test', `${'a'.repeat(245)}@acme.test`, '**@acme.test', 'a@acme.test\r\nx', 'a@acme\t.test', '*@ac me.test'])(
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
    `${'ü'.repeat(123)}@acme.test`, // 256 octets in UTF-8 in all (RFC 5321's 254 for a whole address)
  ])('the recipient %j is not routable', (input) => {
    expect(routeCandidates(input)).toEqual([]);
  });
});

describe('domains (UTS #46, with the Bidi and joiner rules)', () => {
  test.each([
    ['אב.example', 'xn--4dbc.example'], // right to left throughout
    ['א0.example', 'xn--0-zhc.example'], // an RTL label may end in a European digit (RFC 5893 rule 6)
    ['mail.אב.example', 'mail.xn--4dbc.example'], // LTR labels beside it start and end with letters
    ['مثال.example', 'xn--mgbh0fb.example'],
    ['XN--BCHER-KVA.Example', 'xn--bcher-kva.example'],
    ['ab--cd.example', 'ab--cd.example'], // hyphens in positions 3–4 of an ASCII label
    ['\u0915\u094d\u200d\u0937.example', 'xn--11b2ezcw70k.example'], // ZWJ after a virama is allowed (RFC 5892 A.2)
  ])('%j is %j', (input, ascii) => {
    expect(normalizeDomain(input)).toBe(ascii);
  });

  test.each([
    ['1א.example', 'an RTL label starting with a digit (rule 1)'],
    ['aא.example', 'an LTR letter in an RTL label (rule 2)'],
    ['אa.example', 'an RTL label ending in an LTR letter (rule 3)'],
    ['ا١۱.example', 'Arabic-Indic and European digits mixed (rule 4)'],
    ['אב.1x.example', 'a label of a Bidi domain name starting with a digit (rule 1 applies to every label)'],
    ['a\u200db.example', 'a ZWJ with no virama before it (RFC 5892 A.2)'],
    ['a\u200cb.example', 'a ZWNJ with no joining context (RFC 5892 A.1)'],
    ['xn--a.example', 'an A-label that is not Punycode'],
    ['exa_mple.example', 'an underscore (STD3)'],
  ])('%j is refused: %s', (input) => {
    expect(normalizeDomain(input)).toBeNull();
  });
});
