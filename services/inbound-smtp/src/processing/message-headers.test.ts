import { singleMessageId } from './message-headers';

describe('singleMessageId', () => {
  test.each([
    ['<id@example.com>', '<id@example.com>'],
    ['  <id@example.com>\t', '<id@example.com>'],
    ['(sent by x) <id@example.com> (more)', '<id@example.com>'],
    ['<a@example.com> <b@example.com>', '<a@example.com> <b@example.com>'],
    ['id@example.com', 'id@example.com'],
    ['(only a comment)', '(only a comment)'],
    ['   ', null],
    [undefined, null],
  ])('when the value is %j, then it reads %j', (value, expected) => {
    expect(singleMessageId(value)).toBe(expected);
  });
});
