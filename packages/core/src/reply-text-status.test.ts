import { enhancedFromBasic, permanentStatusFromText } from './reply-text-status';

describe('enhancedFromBasic', () => {
  test('when only a basic 550 with a no-such-user text is given, then it maps to 5.1.1; other 550s to 5.0.0', () => {
    expect(enhancedFromBasic(550, '550 User unknown')).toBe('5.1.1');
    expect(enhancedFromBasic(550, '550 Requested action not taken: mailbox unavailable')).toBe('5.1.1');
    expect(enhancedFromBasic(550, '550 Address does not exist')).toBe('5.1.1');
    expect(enhancedFromBasic(554, "554 delivery error: dd This user doesn't have a yahoo.com account")).toBe('5.1.1');
    expect(enhancedFromBasic(550, '550 Message rejected')).toBe('5.0.0');
  });

  test('when the text says mailbox full, or spam, block or policy, then 5.2.2 or 5.7.1; a 4xx is 4.2.2 or 4.0.0', () => {
    expect(enhancedFromBasic(552, '552 Mailbox full')).toBe('5.2.2');
    expect(enhancedFromBasic(554, '554 Rejected as spam')).toBe('5.7.1');
    expect(enhancedFromBasic(550, '550 Your IP is on a block list')).toBe('5.7.1');
    expect(enhancedFromBasic(452, '452 Mailbox full')).toBe('4.2.2');
    expect(enhancedFromBasic(451, '451 Try later')).toBe('4.0.0');
  });
});

describe('permanentStatusFromText', () => {
  test('when a permanent failure names no code, then only a no-such-user or mailbox-full text gives one', () => {
    expect(permanentStatusFromText('The email account that you tried to reach does not exist.')).toBe('5.1.1');
    expect(permanentStatusFromText('The recipient is over quota.')).toBe('5.2.2');
    expect(permanentStatusFromText('Delivery failed.')).toBeNull();
  });
});
