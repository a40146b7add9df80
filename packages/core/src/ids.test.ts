import { ERROR_NAMES, ERROR_STATUS, MailroomError } from './errors';
import { isId, newId } from './ids';

describe('ids', () => {
  test('when ids are made, then they carry the prefix and sort by creation', () => {
    const ids = Array.from({ length: 50 }, () => newId('email'));
    expect(ids.every((id) => /^em_[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(50);
    expect(isId('email', ids[0])).toBe(true);
    expect(isId('project', ids[0])).toBe(false);
    expect(isId('email', 'em_../../etc')).toBe(false);
  });
});

describe('errors', () => {
  test('when a MailroomError is rendered, then its body has the contract shape and status', () => {
    expect(new MailroomError('restricted_api_key', 'nope').toBody()).toEqual({ name: 'restricted_api_key', message: 'nope', statusCode: 403 });
    expect(ERROR_STATUS.validation_error).toBe(422);
    expect(ERROR_NAMES).toContain('concurrent_idempotent_requests');
    for (const name of ERROR_NAMES) expect(new MailroomError(name, 'x').statusCode).toBe(ERROR_STATUS[name]);
  });
});
