import { inReplyToId, singleMessageId } from './message-headers';
import { parseMessage } from './parse-message';

describe('singleMessageId', () => {
  test.each([
    ['<id@example.com>', '<id@example.com>'],
    ['  <id@example.com>\t', '<id@example.com>'],
    ['(sent by x) <id@example.com> (more)', '<id@example.com>'],
    ['((nested) \\) comment) <id@example.com>', '<id@example.com>'],
    ['<a@example.com> <b@example.com>', '<a@example.com> <b@example.com>'],
    // Message-ID has no obsolete phrase form: words beside an id keep the value as written.
    ['words <id@example.com>', 'words <id@example.com>'],
    ['id@example.com', 'id@example.com'],
    ['(only a comment)', '(only a comment)'],
    ['   ', null],
    [undefined, null],
  ])('when the value is %j, then it reads %j', (value, expected) => {
    expect(singleMessageId(value)).toBe(expected);
  });
});

describe('inReplyToId', () => {
  test.each([
    ['<old@x.example>', '<old@x.example>'],
    ['<old@x.example> (Your message of Mon, 30 Nov 2026)', '<old@x.example>'],
    // RFC 5322 §4.5.4: obs-in-reply-to is *(phrase / msg-id); the phrase is no id.
    ['Your message of "Mon, 30 Nov 2026" <old@x.example>', '<old@x.example>'],
    ['"Mon, <30> Nov" <old@x.example> of today', '<old@x.example>'],
    ['<a@example.com> <b@example.com>', '<a@example.com> <b@example.com>'],
    ['Your message of Mon, 30 Nov 2026', 'Your message of Mon, 30 Nov 2026'],
    ['   ', null],
    [undefined, null],
  ])('when the value is %j, then it reads %j', (value, expected) => {
    expect(inReplyToId(value)).toBe(expected);
  });

  test('when a message’s In-Reply-To has the obsolete phrase form, then inReplyTo is its one id, angle brackets included', async () => {
    const parsed = await parseMessage(Buffer.from('From: a@sender.example\r\nIn-Reply-To: Your message of "Mon, 30 Nov 2026" <old@x.example>\r\n\r\nx\r\n'));
    expect(parsed.inReplyTo).toBe('<old@x.example>');
    expect(parsed.headers).toContainEqual({ name: 'In-Reply-To', value: 'Your message of "Mon, 30 Nov 2026" <old@x.example>' });
  });
});
