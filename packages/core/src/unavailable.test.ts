import { isUnavailableError } from './unavailable';

describe('isUnavailableError', () => {
  test('when node-pg reports a server going down or starting up, then it is unavailability', () => {
    for (const code of ['57P01', '57P02', '57P03', 'ECONNREFUSED']) expect(isUnavailableError(Object.assign(new Error('x'), { code }))).toBe(true);
  });

  test('when the Prisma client wraps the server’s SQLSTATE in its driver adapter error, then it is found there', () => {
    // As Prisma 7 reported a query made while PostgreSQL was still recovering (P2039, the SQLSTATE as originalCode).
    const err = Object.assign(new Error('Database error. Code: `57P03`.'), {
      code: 'P2039',
      meta: { modelName: 'ApiKey', driverAdapterError: { name: 'DriverAdapterError', cause: { originalCode: '57P03', originalMessage: 'the database system is not yet accepting connections' } } },
    });
    expect(isUnavailableError(err)).toBe(true);
  });

  test('when a statement ran past the statement timeout, or PostgreSQL never answered it, then it is unavailability', () => {
    expect(isUnavailableError(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))).toBe(true);
    expect(isUnavailableError(new Error('Query read timeout'))).toBe(true);
  });

  test('when a query is wrong, then it is not unavailability', () => {
    expect(isUnavailableError(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    const err = Object.assign(new Error('Unique constraint failed'), { code: 'P2002', meta: { driverAdapterError: { cause: { originalCode: '23505' } } } });
    expect(isUnavailableError(err)).toBe(false);
  });
});
