import { parseMessage } from './parse-message';

describe('parseMessage', () => {
  test.each([
    ['empty', ''],
    ['a lone line end', '\r\n'],
    ['a body without a header section', '\r\nHello.\r\n'],
  ])('when the message is %s, then it has no headers (not one without a name)', async (_what, raw) => {
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.headers).toEqual([]);
    expect(parsed.subject).toBeNull();
    expect(parsed.parseError).toBeNull();
  });

  test('when a header is empty or a line has no colon, then each is still a header, in order', async () => {
    const parsed = await parseMessage(Buffer.from('X-Empty:\r\nnot a header\r\nSubject: s\r\n\r\nbody\r\n'));
    expect(parsed.headers).toEqual([
      { name: 'X-Empty', value: '' },
      { name: 'not a header', value: '' },
      { name: 'Subject', value: 's' },
    ]);
  });

  test('when the message starts with a UTF-8 byte order mark, then its first header is read all the same', async () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('From: Ada <ada@example.com>\r\nSubject: s\r\n\r\nbody\r\n')]);
    const parsed = await parseMessage(raw);
    expect(parsed.from).toEqual({ address: 'ada@example.com', name: 'Ada' });
    expect(parsed.headers[0]).toEqual({ name: 'From', value: 'Ada <ada@example.com>' });
    expect(parsed.text).toBe('body\n');
  });
});
