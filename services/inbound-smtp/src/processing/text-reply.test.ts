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

  test('when a sign-off ends the text ("Best regards,", "Cheers!") without a delimiter, then it stays, and so does text after it', () => {
    expect(textReplyOf('Sounds good.\n\nBest regards,\nAda\n\nOn Mon, 23 Nov 2026 at 10:00, Bob <bob@example.test> wrote:\n> OK?\n', null)).toBe('Sounds good.\n\nBest regards,\nAda');
    expect(textReplyOf('Great news.\nCheers!\nThe deploy went fine.\n', null)).toBe('Great news.\nCheers!\nThe deploy went fine.');
  });

  test('when the text ends with a mobile signature in a language the parser does not know, then it is removed', () => {
    for (const signature of ['Отправлено с iPhone', 'Inviato da iPhone', 'iPhoneから送信', '发自我的iPhone', 'iPhone에서 보냄', 'Wysłane z mojego Galaxy', 'Enviado do meu iPhone']) {
      expect(textReplyOf(`Ok.\n\n${signature}\n\n> Bob wrote something\n`, null)).toBe('Ok.');
    }
  });

  test('when the last line only resembles a mobile signature (no device named), then it stays', () => {
    expect(textReplyOf('The parcel?\n\nSent from the warehouse on Monday.', null)).toContain('The parcel?');
    expect(textReplyOf('Done.\nEnviado desde la oficina central', null)).toContain('Done.');
    expect(textReplyOf('Hecho.\nInviato da Roma ieri', null)).toBe('Hecho.\nInviato da Roma ieri');
  });

  test('when the new text above the history holds a "> " line, then it stays: the writer quotes it', () => {
    const text = 'The log says:\n> ERROR 42\n\nCan you check?\n\nOn Mon, 24 Nov 2025 at 09:00, Ann <ann@example.test> wrote:\n> Is it done?\n';
    expect(textReplyOf(text, null)).toBe('The log says:\n> ERROR 42\n\nCan you check?');
  });
});
