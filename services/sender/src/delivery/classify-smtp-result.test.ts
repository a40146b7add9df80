import { CannotDowngradeError } from '../message/downgrade-to-7bit';
import { rejected, smtpError } from '../../test/support/smtp-errors';
import { classifyReply, classifySmtpResult, isNextHopFailure, isTlsFailure } from './classify-smtp-result';

describe('classifySmtpResult', () => {
  it('when the server answered 250 after DATA, then it is delivered with the parsed reply and host', () => {
    expect(classifySmtpResult({ ok: true, response: '250 2.0.0 Ok: queued as ABC', host: 'mx.example.test' })).toEqual({
      kind: 'delivered',
      smtp: { code: 250, enhancedCode: '2.0.0', message: 'Ok: queued as ABC' },
      host: 'mx.example.test',
    });
  });

  it('when RCPT gets 451 with a retry hint, then it is deferred with the hinted delay', () => {
    expect(rejected('451 4.7.1 Greylisted, try again in 120 seconds')).toEqual({
      kind: 'deferred',
      smtp: { code: 451, enhancedCode: '4.7.1', message: 'Greylisted, try again in 120 seconds' },
      error: 'Failed: 451 4.7.1 Greylisted, try again in 120 seconds',
      retryAfterSeconds: 120,
    });
  });

  it('when RCPT gets 450 without a hint, then it is deferred with no delay', () => {
    expect(rejected('450 4.2.1 Mailbox busy')).toMatchObject({ kind: 'deferred', retryAfterSeconds: null });
  });

  it.each([
    ['550 5.1.1 No such user', 'hard', true],
    ['550 5.1.2 Bad destination system', 'hard', true],
    ['550 5.7.1 Rejected by policy', 'policy', false],
    ['554 5.7.26 Unauthenticated mail is prohibited (DMARC)', 'policy', false],
    ['552 5.2.2 Mailbox full', 'soft', false],
    ['552 5.3.4 Message too big', 'soft', false],
    ['554 5.6.0 Message content rejected', 'hard', false],
    ['550 Requested action not taken', 'hard', false],
    ['550 5.1.7 Bad sender address syntax', 'hard', false],
    // 5.1.x codes on refusals whose words blame a policy: never suppressed.
    ['550 5.1.0 192.0.2.9 is not allowed to send from <acme.example> per its SPF Record', 'hard', false],
    ['550 5.1.1 <ann@example.net> - acme.example has sent to too many recipients this hour', 'hard', false],
  ])('when RCPT gets "%s", then it bounces %s with suppress %s', (response, bounceType, suppress) => {
    expect(rejected(response)).toMatchObject({ kind: 'bounced', bounceType, suppress });
  });

  // Replies with no enhanced code (qmail, older Exchange and Postfix, Yahoo), read by their text as
  // a bounce report by mail is; the reply shown keeps the codes it came with.
  it.each([
    ['550 No such user here', 'hard', true],
    ['550 <bob@example.com>: Recipient address rejected: User unknown in local recipient table', 'hard', true],
    ['550 Requested action not taken: mailbox unavailable', 'hard', true],
    ["554 delivery error: dd This user doesn't have a yahoo.com account (bob@yahoo.com) [0]", 'hard', true],
    ['552 Requested mail action aborted: mailbox full', 'soft', false],
    ['554 Message rejected as spam', 'policy', false],
    ['550 Your IP 192.0.2.1 is listed in a block list', 'policy', false],
    ['554 Transaction failed', 'hard', false],
  ])('when RCPT gets "%s", with no enhanced code, then it bounces %s with suppress %s by its text', (response, bounceType, suppress) => {
    expect(rejected(response)).toMatchObject({ kind: 'bounced', bounceType, suppress, smtp: { code: Number(response.slice(0, 3)), enhancedCode: null } });
  });

  it('when MAIL FROM is refused as "user unknown" with no enhanced code, then it bounces without suppressing the recipient', () => {
    expect(rejected('550 User unknown', 'MAIL FROM')).toMatchObject({ kind: 'bounced', bounceType: 'hard', suppress: false });
  });

  it('when MAIL FROM is refused with a 5.1.x code, then it bounces without suppressing the recipient', () => {
    expect(rejected('550 5.1.0 Sender rejected', 'MAIL FROM')).toMatchObject({ kind: 'bounced', bounceType: 'hard', suppress: false });
  });

  it('when the reply to DATA is a 5xx (EMESSAGE), then it is classified like any other 5xx', () => {
    expect(rejected('550 5.1.1 User unknown', 'DATA', 'EMESSAGE')).toMatchObject({ kind: 'bounced', bounceType: 'hard', suppress: true });
  });

  it('when the reply to DATA says "Unknown user" with no enhanced code (NTT docomo\'s filter), then it bounces without suppressing: the recipient was accepted at RCPT', () => {
    expect(rejected('550 Unknown user ann@docomo.example', 'DATA', 'EMESSAGE')).toMatchObject({ kind: 'bounced', bounceType: 'hard', suppress: false, code: '5.1.1' });
    expect(rejected('550 Unknown user ann@docomo.example', 'RCPT TO')).toMatchObject({ kind: 'bounced', suppress: true });
  });

  it('when the server answers 503 (bad sequence), then it is deferred: a new session can succeed', () => {
    expect(rejected('503 5.5.1 Error: need MAIL command')).toMatchObject({ kind: 'deferred' });
  });

  it.each([
    ['530 5.7.0 Must issue a STARTTLS command first', 'MAIL FROM'],
    ['530 5.7.0 Authentication required', 'MAIL FROM'],
    ['530 5.7.0 Authentication required', 'RCPT TO'],
  ])('when "%s" answers %s, then it is deferred: the session is refused, not the recipient', (response, command) => {
    expect(rejected(response, command)).toMatchObject({ kind: 'deferred', smtp: { code: 530, enhancedCode: '5.7.0' } });
  });

  it('when a reply is huge, then the outcome keeps only its first 1000 characters', () => {
    const response = `451 4.3.0 ${'x'.repeat(200_000)}`;
    const outcome = rejected(response);
    expect(outcome).toMatchObject({ kind: 'deferred', smtp: { code: 451, enhancedCode: '4.3.0' } });
    expect(outcome.kind === 'deferred' && outcome.smtp?.message.length).toBe(1000);
    expect(outcome.kind === 'deferred' && outcome.error.length).toBe(1000);
  });

  it('when the greeting is a 554, then it is deferred: it says nothing about the recipient', () => {
    const error = smtpError({ code: 'EPROTOCOL', response: '554 5.7.1 No SMTP service here', command: 'CONN', message: 'Invalid greeting' });
    expect(classifySmtpResult({ ok: false, error })).toMatchObject({ kind: 'deferred', smtp: { code: 554 } });
  });

  it('when the smarthost refuses our credentials, then it is deferred', () => {
    const error = smtpError({ code: 'EAUTH', response: '535 5.7.8 Authentication credentials invalid', command: 'AUTH PLAIN' });
    expect(classifySmtpResult({ ok: false, error })).toMatchObject({ kind: 'deferred', smtp: { code: 535 } });
  });

  it('when the connection was refused, then it is deferred without a reply', () => {
    const error = smtpError({ code: 'ESOCKET', command: 'CONN', message: 'connect ECONNREFUSED 127.0.0.1:25', originalCode: 'ECONNREFUSED' });
    expect(classifySmtpResult({ ok: false, error })).toEqual({
      kind: 'deferred',
      smtp: null,
      error: 'ESOCKET: connect ECONNREFUSED 127.0.0.1:25',
      retryAfterSeconds: null,
    });
  });

  it('when the server closed with 421, then it is deferred with the reply', () => {
    const error = smtpError({ code: 'ECONNECTION', response: '421 4.3.2 Shutting down, try again in 5 min', command: 'CONN' });
    expect(classifySmtpResult({ ok: false, error })).toMatchObject({ kind: 'deferred', smtp: { code: 421 }, retryAfterSeconds: 300 });
  });

  it('when nodemailer refuses the recipient address itself, then it bounces hard with 5.1.3 and suppresses', () => {
    const error = smtpError({ code: 'EENVELOPE', command: 'API', message: 'Invalid recipient "a<b@example.test"' });
    expect(classifySmtpResult({ ok: false, error })).toMatchObject({ kind: 'bounced', bounceType: 'hard', suppress: true, smtp: { enhancedCode: '5.1.3' } });
  });

  it('when the message is larger than the SIZE the server advertised, then it bounces soft', () => {
    const error = smtpError({ code: 'EMESSAGE', command: 'MAIL FROM', message: 'Message size larger than allowed 1000' });
    expect(classifySmtpResult({ ok: false, error })).toMatchObject({ kind: 'bounced', bounceType: 'soft', suppress: false, smtp: { enhancedCode: '5.3.4' } });
  });

  it('when the next hop offers no 8BITMIME and the message cannot be made 7-bit, then it bounces 5.6.3 without a reply code, never suppressing', () => {
    const error = new CannotDowngradeError('a header field has 8-bit bytes (that needs SMTPUTF8, RFC 6531)');
    expect(classifySmtpResult({ ok: false, error })).toEqual({
      kind: 'bounced',
      bounceType: 'hard',
      suppress: false,
      smtp: { code: null, enhancedCode: '5.6.3', message: error.message },
      code: '5.6.3',
    });
    expect(isNextHopFailure(error)).toBe(true); // direct delivery tries the next MX, which may offer 8BITMIME
  });

  it('when something that is not an Error was thrown, then it is deferred with its text', () => {
    expect(classifySmtpResult({ ok: false, error: 'boom' })).toEqual({ kind: 'deferred', smtp: null, error: 'boom', retryAfterSeconds: null });
  });
});

describe('classifyReply', () => {
  it('when a made-up reply has no basic code, then its enhanced code decides', () => {
    expect(classifyReply({ code: null, enhancedCode: '5.1.10', message: 'null MX' }, 'null MX')).toMatchObject({
      kind: 'bounced',
      bounceType: 'hard',
      suppress: true,
    });
  });
});

describe('isNextHopFailure', () => {
  it.each([
    ['a refused connection', true, { code: 'ESOCKET', command: 'CONN' }],
    ['a timeout', true, { code: 'ETIMEDOUT', command: 'CONN' }],
    ['a 421 at RCPT', true, { code: 'EENVELOPE', response: '421 4.3.2 Closing', command: 'RCPT TO' }],
    ['a 554 greeting', true, { code: 'EPROTOCOL', response: '554 No service', command: 'CONN' }],
    ['a 550 at RCPT', false, { code: 'EENVELOPE', response: '550 5.1.1 Unknown', command: 'RCPT TO' }],
    ['a 451 at RCPT', false, { code: 'EENVELOPE', response: '451 4.7.1 Later', command: 'RCPT TO' }],
    ['our own deadline', false, { code: 'EABORT' }],
    ['an invalid recipient', false, { code: 'EENVELOPE', command: 'API' }],
  ])('when the attempt failed with %s, then trying the next host is %s', (_name, expected, fields) => {
    expect(isNextHopFailure(smtpError(fields))).toBe(expected);
  });
});

describe('isTlsFailure', () => {
  it.each([
    ['STARTTLS refused by nodemailer (ETLS)', true, { code: 'ETLS', command: 'STARTTLS' }],
    ['an OpenSSL error in the handshake', true, { code: 'ESOCKET', command: 'CONN', originalCode: 'ERR_SSL_WRONG_VERSION_NUMBER' }],
    [
      'the peer closing the connection during the handshake',
      true,
      { code: 'ESOCKET', command: 'CONN', originalCode: 'ECONNRESET', message: 'Client network socket disconnected before secure TLS connection was established' },
    ],
    ['a reset at any other time (read ECONNRESET)', false, { code: 'ESOCKET', command: 'CONN', originalCode: 'ECONNRESET', message: 'read ECONNRESET' }],
    ['a 454 reply to STARTTLS', false, { code: 'ETLS', command: 'STARTTLS', response: '454 4.7.0 TLS not available' }],
  ])('when the attempt failed with %s, then it is a TLS failure: %s', (_name, expected, fields) => {
    expect(isTlsFailure(smtpError(fields))).toBe(expected);
  });
});
