import addressparser from 'nodemailer/lib/addressparser';
import { parseMailbox } from '../src/features/emails/addresses';

describe('parseMailbox', () => {
  test('when given a bare address, then it is the address with no name', () => {
    expect(parseMailbox('ana@example.com')).toEqual({ name: '', address: 'ana@example.com' });
    expect(parseMailbox("o'brien+tag@mail.example.co.uk")).toEqual({ name: '', address: "o'brien+tag@mail.example.co.uk" });
  });

  test('when given a display name, then name and address are separated', () => {
    expect(parseMailbox('Ana Lima <ana@example.com>')).toEqual({ name: 'Ana Lima', address: 'ana@example.com' });
    expect(parseMailbox('"Lima, Ana" <ana@example.com>')).toEqual({ name: 'Lima, Ana', address: 'ana@example.com' });
  });

  test('when the domain is internationalized, then the address comes back with its punycode domain', () => {
    expect(parseMailbox('bob@bücher.example')).toEqual({ name: '', address: 'bob@xn--bcher-kva.example' });
    expect(parseMailbox('Иван <ivan@пример.рф>')).toEqual({ name: 'Иван', address: 'ivan@xn--e1afmkfd.xn--p1ai' });
    expect(parseMailbox('ivan@xn--e1afmkfd.xn--p1ai')).toEqual({ name: '', address: 'ivan@xn--e1afmkfd.xn--p1ai' });
  });

  test('when the local part is any RFC 5322 dot-atom up to 64 octets, then it is accepted as written', () => {
    for (const address of ["!#$%&'*+/=?^_`{|}~-@example.com", 'a/b@example.com', '{ana}|x@example.com', 'ana%other@example.com', `${'l'.repeat(64)}@example.com`]) {
      expect(parseMailbox(address)).toEqual({ name: '', address });
    }
  });

  test('when an A-label is in capitals, then it is accepted, lower-cased as nodemailer writes it', () => {
    expect(parseMailbox('ivan@XN--E1AFMKFD.XN--P1AI')).toEqual({ name: '', address: 'ivan@xn--e1afmkfd.xn--p1ai' });
  });

  test('when an unquoted name has runs of spaces, then they read as one (RFC 5322 §3.2.2)', () => {
    expect(parseMailbox('Ana   Lima   <ana@example.com>')).toEqual({ name: 'Ana Lima', address: 'ana@example.com' });
  });

  test.each([
    ['an internationalized local part', 'иван@example.com'],
    ['a domain that is no host name', 'a@bü cher.example'],
    ['no domain', 'ana@'],
    ['no at sign', 'ana.example.com'],
    ['two addresses', 'a@example.com, b@example.com'],
    ['a line break', 'Ana <ana@example.com>\r\nBcc: x@example.com'],
    ['two at signs', 'a@b@example.com'],
    ['a dot at the end of the domain', 'ana@example.com.'],
    ['too long', `${'a'.repeat(250)}@example.com`],
    ['empty', ''],
    ['two angle-bracketed addresses', '<u@example.com> <v@example.com>'],
    ['an address in a comment', 'u@example.com (v@example.com)'],
    ['an address as the display name', 'u@example.com <v@example.com>'],
    ['an address as a quoted display name', '"v@example.com" <u@example.com>'],
    ['a group', 'friends: u@example.com;'],
    ['a trailing line break', 'u@example.com\r\n'],
    ['a local part of 65 octets', `${'l'.repeat(65)}@example.com`],
    ['a label ending in a hyphen', 'ana@example-.com'],
    ['a label starting with a hyphen', 'ana@-example.com'],
    ['a label of 64 octets', `ana@${'a'.repeat(64)}.example`],
    ['an A-label that is not punycode', 'ana@xn--a.example'],
    ['an A-label that does not decode to a valid U-label', 'ana@xn--bcher-zxa.example'],
  ])('when given %s, then it is not a mailbox', (_, value) => {
    expect(parseMailbox(value)).toBeNull();
  });

  test('when a mailbox is in a common plain form, then the shortcut agrees with the full parser', () => {
    const plain = ['a@b.co', 'first.last@example.com', 'x+y=z@example.org', 'UPPER@EXAMPLE.COM', 'a_b-c@sub.example.io', 'bad..dots@example.com'];
    const named = ['Bench <bench@example.test>', 'J. R. Doe <j@example.com>', "O'Brien-Smith <ob@example.ie>", 'Ana <bad..dots@example.com>'];
    for (const value of [...plain, ...named]) {
      const [full] = addressparser(value, { flatten: true });
      const parsed = parseMailbox(value);
      if (parsed) expect(parsed).toEqual({ name: full?.name ?? '', address: full?.address });
      // Whatever the shortcut refuses, the full parser's address fails the same check.
      else expect(parseMailbox(`"Someone" <${full?.address}>`)).toBeNull();
    }
  });
});
