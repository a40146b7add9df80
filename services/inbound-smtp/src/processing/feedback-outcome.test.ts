import type { DsnRecipient, Report } from '../feedback/read-report';
import { pickRecipient } from './apply-feedback';
import { chooseDsnRecipient, dsnOutcome, reportOutcome } from './feedback-outcome';

const block = (over: Partial<DsnRecipient>): DsnRecipient => ({ action: 'failed', status: '5.1.1', diagnostic: '550 5.1.1 No such user', ...over });
const arf = (feedbackType: string): Report => ({ kind: 'arf', feedbackType: feedbackType as never, original: {}, format: 'arf', userAgent: 'Yahoo!-Mail-Feedback/2.0' });

describe('chooseDsnRecipient', () => {
  const a = block({ finalRecipient: 'a@example.test', action: 'delivered', status: '2.0.0' });
  const b = block({ finalRecipient: 'b@example.test' });
  const c = block({ originalRecipient: '<C@Example.test>', action: 'delayed', status: '4.2.2' });

  test('when a block names the recipient (final or original, any case), then that block', () => {
    expect(chooseDsnRecipient([a, b, c], 'b@example.test')).toBe(b);
    expect(chooseDsnRecipient([a, b, c], 'c@EXAMPLE.test')).toBe(c);
  });

  test('when a block names it in U-labels, NFD or upper case (RFC 6533 utf-8 addresses), then that block, not another failed one', () => {
    const other = block({ finalRecipient: 'anderer@exämple.org' });
    const zoe = block({ finalRecipient: 'Zoe\u0308@EXA\u0308MPLE.org', status: '5.2.2' });
    expect(chooseDsnRecipient([other, zoe], 'zoë@xn--exmple-cua.org')).toBe(zoe);
    expect(chooseDsnRecipient([other, block({ originalRecipient: '<zoë@exämple.org>', status: '4.2.2' })], 'zoë@xn--exmple-cua.org')?.status).toBe('4.2.2');
  });

  test('when none names it, then the only failed or delayed block, else the first', () => {
    expect(chooseDsnRecipient([a, b], 'z@example.test')).toBe(b);
    expect(chooseDsnRecipient([a], 'z@example.test')).toBe(a);
    expect(chooseDsnRecipient([], 'z@example.test')).toBeUndefined();
  });

  test('when none names it and several failed blocks agree, then the first of them', () => {
    const b2 = block({ finalRecipient: 'b2@example.test' });
    expect(chooseDsnRecipient([a, b, b2], 'z@example.test')).toBe(b);
  });

  test('when none names it and the failed or delayed blocks differ, then a soft bounce that does not suppress, not a guess', () => {
    const full = block({ finalRecipient: 'full@example.test', status: '5.2.2', diagnostic: '552 5.2.2 Mailbox full' });
    const chosen = chooseDsnRecipient([a, b, full], 'z@example.test');
    expect(chosen).toMatchObject({ action: 'failed', status: null, diagnostic: expect.stringContaining('b@example.test: 5.1.1') });
    expect(chosen && dsnOutcome(chosen)).toMatchObject({ kind: 'bounced', bounceType: 'soft', suppress: false, smtp: { code: null, enhanced_code: null } });
    expect(chooseDsnRecipient([b, c], 'z@example.test')).toMatchObject({ action: 'failed', status: null });
    const later = block({ finalRecipient: 'later@example.test', action: 'delayed', status: '4.4.1' });
    expect(chooseDsnRecipient([c, later], 'z@example.test')).toMatchObject({ action: 'delayed', status: null });
  });
});

describe('dsnOutcome', () => {
  test.each([
    ['5.1.1', 'failed', { kind: 'bounced', bounceType: 'hard', suppress: true }],
    ['5.1.10', 'failed', { kind: 'bounced', bounceType: 'hard', suppress: true }],
    ['5.1.7', 'failed', { kind: 'bounced', bounceType: 'hard', suppress: false }],
    ['5.1.8', 'failed', { kind: 'bounced', bounceType: 'hard', suppress: false }],
    ['5.7.1', 'failed', { kind: 'bounced', bounceType: 'policy', suppress: false }],
    ['5.2.2', 'failed', { kind: 'bounced', bounceType: 'soft', suppress: false }],
    ['4.4.7', 'failed', { kind: 'bounced', bounceType: 'soft', suppress: false }],
    ['4.2.2', 'delayed', { kind: 'deferred' }],
  ] as const)('when the status is %s and the action %s, then %j', (status, action, expected) => {
    expect(dsnOutcome(block({ status, action, diagnostic: null }))).toMatchObject(expected);
  });

  // The status as the report gives it, whatever the diagnostic's words (DESIGN §7: hard for 5.1.x,
  // policy for 5.7.x, soft otherwise; DESIGN §4: only 5.1.x suppresses).
  test.each([
    ['Microsoft 365 refusing a recipient not in its directory', '5.4.1', '550 5.4.1 Recipient address rejected: Access denied. AS(201806281)', 'soft', false],
    ['Gmail: the account is disabled', '5.2.1', '550-5.2.1 The email account that you tried to reach is disabled. 550 5.2.1 Learn more', 'soft', false],
    ['Yandex: no such user, with a policy code', '5.7.1', '550 5.7.1 No such user!', 'policy', false],
    ['Gmail: the account receives mail too fast', '5.2.1', '550 5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.', 'soft', false],
    ['Microsoft relaying refused', '5.4.1', '550 5.4.1 Relay Access Denied', 'soft', false],
    ['Exim: our MAIL FROM refused, our domain unknown there', '5.1.0', 'SMTP error from remote mail server after MAIL FROM:<bounces+x@acme.test> SIZE=1234: 553 5.1.0 <bounces+x@acme.test>... Domain of sender address acme.test does not exist', 'hard', false],
    ['Postfix: a reply to our MAIL FROM', '5.1.8', 'host mx.example.test[192.0.2.1] said: 553 5.1.8 <bounces+x@acme.test>: Sender address rejected: Domain not found (in reply to MAIL FROM command)', 'hard', false],
    ['a reply quoting our return path, the command left out', '5.1.0', '553 5.1.0 <bounces+rcpt_01jf8x2k9m3n4p5q6r7s8t9v0w-3f2a9c1b7e4d@bounce.acme.test>... Address rejected', 'hard', false],
    ['sendmail: our sender domain said not to exist, the command left out', '5.1.0', '553 5.1.0 <bounce.acme.test> does not exist', 'hard', false],
    ['sendmail: the recipient domain said not to exist', '5.1.2', '553 5.1.2 <example.test> does not exist', 'hard', true],
    ['Postfix: a reply to RCPT TO', '5.1.1', 'host mx.example.test[192.0.2.1] said: 550 5.1.1 <x@example.test>: Recipient address rejected: User unknown (in reply to RCPT TO command)', 'hard', true],
  ])('when the report is %s, then it bounces %s, suppress %s', (_what, status, diagnostic, bounceType, suppress) => {
    expect(dsnOutcome(block({ status, diagnostic, finalRecipient: 'x@example.test' }))).toMatchObject({ kind: 'bounced', bounceType, suppress, smtp: { enhanced_code: status } });
  });

  test('when delivered or relayed, then no outcome', () => {
    expect(dsnOutcome(block({ action: 'delivered', status: '2.0.0' }))).toBeNull();
    expect(dsnOutcome(block({ action: 'relayed', status: '2.0.0' }))).toBeNull();
  });

  test('when the diagnostic starts with a reply code, then smtp carries it, the status as enhanced code and the text after the codes', () => {
    expect(dsnOutcome(block({ diagnostic: '550 5.1.1 <x@example.test>: Recipient address rejected' }))).toEqual({
      kind: 'bounced',
      bounceType: 'hard',
      suppress: true,
      smtp: { code: 550, enhanced_code: '5.1.1', message: '<x@example.test>: Recipient address rejected' },
    });
    expect(dsnOutcome(block({ diagnostic: 'Mailbox unavailable' }))).toMatchObject({ smtp: { code: null, message: 'Mailbox unavailable' } });
    expect(dsnOutcome(block({ diagnostic: '550' }))).toMatchObject({ smtp: { code: 550, message: '550' } });
    expect(dsnOutcome(block({ diagnostic: null, status: '4.4.7' }))).toMatchObject({ smtp: { code: null, enhanced_code: '4.4.7', message: 'Action: failed, Status: 4.4.7' } });
  });

  test('when a multi-line reply was joined into the diagnostic, then its repeated line codes are dropped as the sender drops them', () => {
    expect(dsnOutcome(block({ status: '5.1.1', diagnostic: '550-5.1.1 The account does not exist. Please try 550-5.1.1 double-checking the address. 550 5.1.1 https://help.example.test/x' }))).toMatchObject({
      smtp: { code: 550, message: 'The account does not exist. Please try double-checking the address. https://help.example.test/x' },
    });
  });

  test('when the reply is quoted after other text, then its code is read and the introducing text kept; a code of another class than the status is not', () => {
    expect(dsnOutcome(block({ diagnostic: 'host mx.example.test[192.0.2.1] said: 550-5.1.1 no such user 550 5.1.1 here (in reply to RCPT TO command)' }))).toMatchObject({
      smtp: { code: 550, enhanced_code: '5.1.1', message: 'host mx.example.test[192.0.2.1] said: 550 5.1.1 no such user here (in reply to RCPT TO command)' },
    });
    expect(dsnOutcome(block({ status: '5.0.0', diagnostic: 'Remote host said: 554 Message rejected as spam' }))).toMatchObject({ smtp: { code: 554 } });
    expect(dsnOutcome(block({ status: '5.4.7', diagnostic: 'host mx.example.test said: 421 4.4.2 timeout; gave up after 5 days' }))).toMatchObject({ smtp: { code: null } });
  });
});

describe('reportOutcome', () => {
  test('when a report is unreadable, then a soft bounce with no code and its text', () => {
    expect(reportOutcome({ kind: 'unknown', text: 'Something went wrong.' }, 'a@example.test')).toEqual({
      kind: 'bounced',
      bounceType: 'soft',
      suppress: false,
      smtp: { code: null, enhanced_code: null, message: 'Something went wrong.' },
    });
  });

  test('when it is an automatic reply, then nothing', () => {
    expect(reportOutcome({ kind: 'auto-reply', text: 'Out of office' }, 'a@example.test')).toBeNull();
  });

  test.each(['abuse', 'fraud', 'other', 'virus'])('when an ARF report is %s, then a complaint', (type) => {
    expect(reportOutcome(arf(type), 'a@example.test')).toEqual({ kind: 'complained', detail: `${type} report (Yahoo!-Mail-Feedback/2.0)` });
  });

  test.each(['not-spam', 'auth-failure'])('when an ARF report is %s, then no outcome', (type) => {
    expect(reportOutcome(arf(type), 'a@example.test')).toBeNull();
  });
});

describe('pickRecipient', () => {
  const ann = { id: 'rcpt_1', address: 'Ann@example.test' };
  const bob = { id: 'rcpt_2', address: 'bob@example.test' };

  test('when Original-Rcpt-To names a recipient, then that one; else the one To names; else the only one', () => {
    expect(pickRecipient([ann, bob], 'ann@EXAMPLE.test', 'bob@example.test')).toBe(ann);
    expect(pickRecipient([ann, bob], undefined, 'Bob <bob@example.test>')).toBe(bob);
    expect(pickRecipient([ann], 'redacted@example.invalid', undefined)).toBe(ann);
  });

  test('when the original names a recipient with its domain in U-labels, then the recipient stored in A-labels', () => {
    const zoe = { id: 'rcpt_3', address: 'zoe@xn--exmple-cua.org' };
    expect(pickRecipient([ann, zoe], undefined, 'Zoë <zoe@exämple.org>')).toBe(zoe);
    expect(pickRecipient([ann, zoe], 'ZOE@EXÄMPLE.ORG', undefined)).toBe(zoe);
  });

  test('when several recipients and nothing names one of them, then none', () => {
    expect(pickRecipient([ann, bob], undefined, 'ann@example.test, bob@example.test')).toBeNull();
    expect(pickRecipient([ann, bob], undefined, undefined)).toBeNull();
  });
});
