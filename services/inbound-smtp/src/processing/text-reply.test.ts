import { textReplyOf } from './text-reply';

describe('the new text of a reply', () => {
  test('when a reply quotes its history under "On … wrote:", then only the new text is kept', () => {
    const text = 'Sounds good, see you at 10.\n\nOn Mon, 24 Nov 2025 at 09:00, Ann <ann@example.test> wrote:\n> Shall we meet tomorrow?\n> Ann\n';
    expect(textReplyOf(text, null)).toBe('Sounds good, see you at 10.');
  });

  test('when the text holds a flood of blank lines (hostile: the parser is quadratic in them), then they fold to one and the text survives', () => {
    // 100,000 blank lines took minutes before folding; jest's timeout fails a regression.
    const text = `Hello\n${'\n'.repeat(100_000)}\r\n \n\t\nWorld\n`;
    expect(textReplyOf(text, null)).toBe('Hello\n\nWorld');
  });

  test('when there is only HTML, then the reply comes from its text', () => {
    expect(textReplyOf(null, '<p>Yes, <b>please</b>.</p><blockquote>earlier</blockquote>')).toContain('Yes, please.');
  });
});
