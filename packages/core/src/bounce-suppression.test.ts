import { bounceSuppressesAddress } from './bounce-suppression';

describe('bounceSuppressesAddress', () => {
  test.each([
    ['5.1.1', true],
    ['5.1.10', true],
    ['5.1.2', true],
    ['5.1.7', false],
    ['5.1.8', false],
    ['5.7.1', false],
    ['5.2.2', false],
    ['4.1.1', false],
    ['5.0.0', false],
    [null, false],
    ['', false],
  ] as const)('when the enhanced code is %s, then suppressing is %s', (code, expected) => {
    expect(bounceSuppressesAddress(code, '')).toBe(expected);
  });

  // Texts peers put 5.1.x codes on, each written here in the shape those peers send.
  test.each([
    ['5.1.0', '550 5.1.0 192.0.2.9 is not allowed to send from <acme.example> per its SPF Record', false],
    ['5.1.3', '553 5.1.3 http://www.spamhaus.org/query/bl?ip=192.0.2.9', false],
    ['5.1.1', '550 5.1.1 <ann@example.net> - acme.example has sent to too many recipients this hour. IB607', false],
    ['5.1.1', '550 5.1.1 RCP-P2 http://postmaster.example.com/ Refused due to recipient preferences', false],
    ['5.1.0', '550 5.1.0 <bounces@acme.example> sender rejected. Refer to the AUP#CDRBL', false],
    ['5.1.1', '552 sorry, mailbox ann@example.net is over quota temporarily (#5.1.1)', false],
    ['5.1.1', '550 5.1.1 <ann@example.net>: mailbox full', false],
    ['5.1.1', '550 5.1.1 This account has been disabled or discontinued', false],
    ['5.1.1', '552 5.1.1 Message size exceeds fixed maximum message size', false],
    ['5.1.1', '550 5.1.1 <nobody@example.net>: Recipient address rejected: User unknown in virtual mailbox table', true],
    ['5.1.1', '550 5.1.1 User unknown; the message was also scored as spam', true],
    ['5.1.10', '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup', true],
    ['5.1.1', "550-5.1.1 The email account that you tried to reach does not exist.", true],
    ['5.1.1', '550 5.1.1 Requested action not taken', true],
  ] as const)('when the code is %s and the text is %j, then suppressing is %s', (code, text, expected) => {
    expect(bounceSuppressesAddress(code, text)).toBe(expected);
  });
});
