import { parseSmarthostUrl } from './smarthost-url';

describe('parseSmarthostUrl', () => {
  it('when the URL has a password, then the redacted form hides it and keeps the rest', () => {
    const parsed = parseSmarthostUrl('smtps://relay:s3cr%40t@smtp.example.test:465');
    expect(parsed).toEqual({
      url: 'smtps://relay:s3cr%40t@smtp.example.test:465',
      host: 'smtp.example.test',
      secure: true,
      requireTls: false,
      redacted: 'smtps://relay:***@smtp.example.test:465',
    });
  });

  it('when the URL is smtp:// without credentials, then it is not secure and unchanged when redacted', () => {
    expect(parseSmarthostUrl('smtp://127.0.0.1:2525')).toMatchObject({ secure: false, requireTls: false, host: '127.0.0.1', redacted: 'smtp://127.0.0.1:2525' });
  });

  it('when the URL is smtp:// with credentials, then STARTTLS is required before they are sent', () => {
    expect(parseSmarthostUrl('smtp://relay:s3cret@smtp.example.test:587')).toMatchObject({ secure: false, requireTls: true });
  });

  it.each([['http://smtp.example.test'], ['not a url'], ['smtp://']])('when the URL is %s, then it throws', (value) => {
    expect(() => parseSmarthostUrl(value)).toThrow(/smarthost URL/);
  });
});
