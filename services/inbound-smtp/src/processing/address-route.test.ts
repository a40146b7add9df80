import { withoutObsoleteRoute } from './address-route';

describe('obsolete source routes in addresses (RFC 5322 §4.4)', () => {
  test('when an address has a route before it, then the route is ignored', () => {
    expect(withoutObsoleteRoute('@relay.test,@other.test:route@acme.test')).toBe('route@acme.test');
    expect(withoutObsoleteRoute('@relay.test: ada@acme.test')).toBe('ada@acme.test');
  });

  test('when an address has no route, then it is kept as it is', () => {
    expect(withoutObsoleteRoute('ada@acme.test')).toBe('ada@acme.test');
    expect(withoutObsoleteRoute('"a:b"@acme.test')).toBe('"a:b"@acme.test');
  });
});
