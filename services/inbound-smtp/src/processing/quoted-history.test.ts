import { withoutQuotedHistory } from './quoted-history';

describe('where the quoted history of a reply begins', () => {
  test('when Outlook in Portuguese heads the history with "Enviada em:" and a Cc line, then it is cut at "De:"', () => {
    const text = 'Recebido.\n\nDe: Bob Silva\nEnviada em: segunda-feira, 23 de novembro de 2026 10:00\nPara: Ada\nCc: Carla\nAssunto: Contrato\n\nOlá Ada';
    expect(withoutQuotedHistory(text)).toBe('Recebido.');
  });

  test('when lines of the new text start with "From:", "Date:", "Subject:" but no date follows, then nothing is cut', () => {
    const text = 'The export now has:\nFrom: the sender address\nDate: when it was sent\nSubject: the subject line\n\nIs that enough?';
    expect(withoutQuotedHistory(text)).toBe(text);
  });

  test('when a separator line heads header lines (Thunderbird: Subject and Date before From), then the history starts at the separator', () => {
    const text = 'Please have a look.\n\n-------- Forwarded Message --------\nSubject: \tContract\nDate: \tMon, 23 Nov 2026 10:00:00 +0100\nFrom: \tBob\n\nHi';
    expect(withoutQuotedHistory(text)).toBe('Please have a look.');
    expect(withoutQuotedHistory('Note.\n-------- Original-Nachricht --------\nBetreff: Vertrag\nVon: Bob')).toBe('Note.');
  });

  test('when a separator-like line heads no header lines, then nothing is cut', () => {
    const text = 'Results:\n-- draft --\nIt is not final yet.';
    expect(withoutQuotedHistory(text)).toBe(text);
  });

  test('when Apple Mail forwards under "Begin forwarded message:", in its languages, then that line goes with the history', () => {
    expect(withoutQuotedHistory('For your records.\n\nBegin forwarded message:\n\nFrom: Bob\nSubject: Contract\nDate: 23 November 2026 at 10:00:00 CET\n\nHi')).toBe('For your records.');
    expect(withoutQuotedHistory('Zur Info.\n\nAnfang der weitergeleiteten Nachricht:\n\n> Von: Bob\n> Betreff: Vertrag\n> Datum: 23. November 2026')).toBe('Zur Info.');
  });

  test('when the attribution is only a name and "wrote:" in a language, then it goes with the quote under it', () => {
    expect(withoutQuotedHistory('Fixed.\n\nBob Smith wrote:\n> It fails.')).toBe('Fixed.');
    expect(withoutQuotedHistory('Dziękuję.\n\nBob Kowalski pisze:\n> Umowa?')).toBe('Dziękuję.');
  });

  test('when a line of the new text ends with a colon without an address, time or "wrote", then it stays', () => {
    const text = 'Two answers:\n> Can you come?';
    expect(withoutQuotedHistory(text)).toBe(text);
  });

  test('when an attribution is wrapped before its address, then its first line, which has the date, goes too', () => {
    expect(withoutQuotedHistory('Approved.\n\nOn Mon, Nov 23, 2026 at 10:00 AM Bob Alexander Smith\n<bob@example.com> wrote:\n\n> Budget?')).toBe('Approved.');
    expect(withoutQuotedHistory('Yes.\n\nOn Monday, November 23, 2026 at 10:00:00 AM UTC+1, Bob\nSmith <bob@example.com>\nwrote:\n> Friday?')).toBe('Yes.');
  });

  test('when the line above a dateless attribution ends a sentence, then it is the writer\'s and stays', () => {
    expect(withoutQuotedHistory('Fixed in build 1234.\nBob Smith wrote:\n> It fails.')).toBe('Fixed in build 1234.');
  });

  test('when an attribution saying "wrote:" is followed by unquoted history (Yahoo\'s HTML), then the history is cut', () => {
    const text = 'Sounds good.\nOn Monday, November 23, 2026, 10:00:00 AM GMT+1, Bob <bob@example.com> wrote:\n\nHi Ada,\nFriday?';
    expect(withoutQuotedHistory(text)).toBe('Sounds good.');
  });

  test('when an inline reply starts with its attribution, then nothing is cut (the parser keeps the answers)', () => {
    const text = 'On Mon, Nov 23, 2026 at 10:00 AM Bob <bob@example.com> wrote:\n> Friday?\n\nYes.\n\n> Carol?\n\nNo.';
    expect(withoutQuotedHistory(text)).toBe(text);
  });

  test('when 60,000 separator lines stand above the history (hostile), then they are removed in linear time', () => {
    const text = `Hi\n${'-----\n'.repeat(60_000)}From: a\nSent: Monday 10:00\n`;
    const started = Date.now();
    expect(withoutQuotedHistory(text)).toBe('Hi');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
