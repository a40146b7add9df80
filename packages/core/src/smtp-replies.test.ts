import { ERROR_NAMES, ERROR_STATUS, MailroomError } from './errors';
import { formatSmtpReply, SMTP_REPLY, toSmtpReply } from './smtp-replies';

describe('SMTP replies', () => {
  test('when the reply table is read, then the contract names get the replies an MTA expects', () => {
    expect(formatSmtpReply(SMTP_REPLY.service_unavailable)).toMatch(/^451 4\.3\.0 /);
    expect(formatSmtpReply(SMTP_REPLY.internal_server_error)).toMatch(/^451 4\.3\.0 /);
    expect(formatSmtpReply(SMTP_REPLY.payload_too_large)).toMatch(/^552 5\.3\.4 /);
    expect(formatSmtpReply(SMTP_REPLY.not_found)).toMatch(/^550 5\.1\.1 /);
    expect(formatSmtpReply(SMTP_REPLY.rate_limit_exceeded)).toMatch(/^4[25]1 4\.7\.\d /);
    expect(formatSmtpReply(SMTP_REPLY.validation_error)).toMatch(/^5(01|50) 5\.\d\.\d /);
    expect(formatSmtpReply(SMTP_REPLY.request_timeout)).toMatch(/^421 4\./);
  });

  test('when any name has a reply, then its code and enhanced code agree in class and are well formed', () => {
    expect(Object.keys(SMTP_REPLY).sort()).toEqual([...ERROR_NAMES].sort());
    for (const name of ERROR_NAMES) {
      const { code, enhancedCode, message } = SMTP_REPLY[name];
      expect(String(code)).toMatch(/^[45][0-5]\d$/);
      expect(enhancedCode).toMatch(/^[45]\.\d{1,3}\.\d{1,3}$/);
      expect(enhancedCode[0]).toBe(String(code)[0]);
      expect(message).toMatch(/^[\x20-\x7e]+$/);
    }
  });

  test('when an error is transient over HTTP (5xx, 429, 408), then its SMTP reply is never permanent', () => {
    for (const name of ERROR_NAMES) {
      const status = ERROR_STATUS[name];
      if (status >= 500 || status === 429 || status === 408) expect(SMTP_REPLY[name].code).toBeLessThan(500);
    }
  });

  test('when a MailroomError is turned into a reply, then it keeps its own message on one printable line', () => {
    expect(toSmtpReply(new MailroomError('not_found', 'No route for bob@example.test.'))).toEqual({
      code: 550,
      enhancedCode: '5.1.1',
      message: 'No route for bob@example.test.',
    });
    const reply = toSmtpReply(new MailroomError('payload_too_large', 'Too big\r\n250 OK\tnow \u00e9'));
    expect(reply).toEqual({ code: 552, enhancedCode: '5.3.4', message: 'Too big 250 OK now' });
    expect(toSmtpReply(new MailroomError('validation_error', '\r\n')).message).toBe(SMTP_REPLY.validation_error.message);
    expect(toSmtpReply(new MailroomError('conflict', 'x'.repeat(1000))).message).toHaveLength(200);
  });

  test('when an unknown error is turned into a reply, then it is 451 4.3.0 with no internals', () => {
    const reply = toSmtpReply(new Error('relation "secret_table" does not exist'));
    expect(reply).toEqual(SMTP_REPLY.internal_server_error);
    expect(formatSmtpReply(reply)).toMatch(/^451 4\.3\.0 /);
    expect(reply.message).not.toContain('secret_table');
    for (const weird of [undefined, null, 'a string', 42, { code: 550 }]) expect(toSmtpReply(weird).code).toBe(451);
  });

  test('when PostgreSQL or Redis is unreachable, then the reply is service_unavailable 451 4.3.0', () => {
    const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(toSmtpReply(err)).toEqual(SMTP_REPLY.service_unavailable);
    expect(toSmtpReply(new Error('wrapped', { cause: err }))).toEqual(SMTP_REPLY.service_unavailable);
  });

  test('when a reply is taken from the table and changed, then the table is not', () => {
    const reply = toSmtpReply(new Error('x'));
    reply.message = 'changed';
    expect(SMTP_REPLY.internal_server_error.message).not.toBe('changed');
  });
});
