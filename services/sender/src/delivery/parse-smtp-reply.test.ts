import { parseSmtpReply } from './parse-smtp-reply';

describe('parseSmtpReply', () => {
  it('when the reply has a code and an enhanced code, then both are split from the text', () => {
    expect(parseSmtpReply('550 5.1.1 <a@example.test>: Recipient address rejected')).toEqual({
      code: 550,
      enhancedCode: '5.1.1',
      message: '<a@example.test>: Recipient address rejected',
    });
  });

  it('when the reply has no enhanced code, then enhancedCode is null and the text is kept', () => {
    expect(parseSmtpReply('250 OK: queued as 7F3A1')).toEqual({ code: 250, enhancedCode: null, message: 'OK: queued as 7F3A1' });
  });

  it('when the reply spans several lines, then the codes are taken once and the lines joined', () => {
    const reply = '550-5.1.1 The email account that you tried to reach does not exist.\r\n550 5.1.1 Please check the address.';
    expect(parseSmtpReply(reply)).toEqual({
      code: 550,
      enhancedCode: '5.1.1',
      message: 'The email account that you tried to reach does not exist. Please check the address.',
    });
  });

  it('when the enhanced code has a three-digit detail, then it is recognised', () => {
    expect(parseSmtpReply('550 5.1.10 Null MX').enhancedCode).toBe('5.1.10');
  });

  it('when something that looks like a version number follows the code, then it is not an enhanced code', () => {
    expect(parseSmtpReply('421 4.4.2x timeout').enhancedCode).toBeNull();
  });

  it('when the text has no code at all, then code is null', () => {
    expect(parseSmtpReply('connection reset')).toEqual({ code: null, enhancedCode: null, message: 'connection reset' });
  });
});
