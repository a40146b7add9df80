import { ERROR_NAMES, ERROR_STATUS, MailroomError } from './errors';

/** DESIGN §4 "Errors (contract)", written out by hand: the table must match it, not itself. */
const CONTRACT: Record<number, string[]> = {
  400: ['invalid_json', 'invalid_idempotency_key'],
  401: ['missing_api_key', 'invalid_session', 'invalid_credentials'],
  403: ['invalid_api_key', 'restricted_api_key', 'forbidden', 'domain_not_verified'],
  404: ['not_found'],
  405: ['method_not_allowed'],
  409: ['invalid_idempotent_request', 'concurrent_idempotent_requests', 'conflict'],
  413: ['payload_too_large'],
  422: ['validation_error', 'missing_required_field'],
  429: ['rate_limit_exceeded'],
  408: ['request_timeout'],
  431: ['headers_too_large'],
  500: ['internal_server_error'],
  503: ['service_unavailable'],
};

describe('errors', () => {
  test('when the error table is compared with the contract, then it has exactly its names and statuses', () => {
    const contract = Object.entries(CONTRACT).flatMap(([status, names]) => names.map((name) => [name, Number(status)] as const));
    expect(Object.fromEntries(Object.entries(ERROR_STATUS).sort())).toEqual(Object.fromEntries(contract.sort()));
    expect([...ERROR_NAMES].sort()).toEqual(contract.map(([name]) => name).sort());
  });

  test('when a MailroomError is rendered, then its body has the contract shape and its name status', () => {
    expect(new MailroomError('restricted_api_key', 'nope').toBody()).toEqual({ name: 'restricted_api_key', message: 'nope', statusCode: 403 });
    for (const [status, names] of Object.entries(CONTRACT)) {
      for (const name of names) expect(new MailroomError(name as keyof typeof ERROR_STATUS, 'x').toBody().statusCode).toBe(Number(status));
    }
  });
});
