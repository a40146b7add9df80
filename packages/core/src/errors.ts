import { isUnavailableError } from './unavailable';

/**
 * The one error model (DESIGN §4 "Errors"): every failure Mailroom reports has a stable
 * machine name and the HTTP status that goes with it. This table is the only place a name
 * is tied to a status.
 */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_idempotency_key: 400,
  missing_api_key: 401,
  invalid_session: 401,
  invalid_credentials: 401,
  invalid_api_key: 403,
  restricted_api_key: 403,
  forbidden: 403,
  domain_not_verified: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  invalid_idempotent_request: 409,
  concurrent_idempotent_requests: 409,
  conflict: 409,
  payload_too_large: 413,
  headers_too_large: 431,
  validation_error: 422,
  missing_required_field: 422,
  rate_limit_exceeded: 429,
  internal_server_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorName = keyof typeof ERROR_STATUS;
export const ERROR_NAMES = Object.keys(ERROR_STATUS) as ErrorName[];

/** The JSON body of every failed request. */
export interface ErrorBody {
  name: ErrorName;
  message: string;
  statusCode: number;
}

/** A failure with a contract name. Domain code throws these; each transport renders them once. */
export class MailroomError extends Error {
  override readonly name: ErrorName;
  readonly statusCode: number;

  constructor(name: ErrorName, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = name;
    this.statusCode = ERROR_STATUS[name];
  }

  toBody(): ErrorBody {
    return { name: this.name, message: this.message, statusCode: this.statusCode };
  }
}

export const notFound = (what = 'resource') => new MailroomError('not_found', `The ${what} was not found.`);
export const forbidden = (message: string) => new MailroomError('forbidden', message);
export const conflict = (message: string) => new MailroomError('conflict', message);
export const serviceUnavailable = (message = 'A backing service (PostgreSQL or Redis) is unavailable; try again shortly.') =>
  new MailroomError('service_unavailable', message);

export function isMailroomError(err: unknown): err is MailroomError {
  return err instanceof MailroomError;
}

/**
 * The one mapping of any error to a contract error: a MailroomError is itself, PostgreSQL or
 * Redis being unreachable is `service_unavailable`, anything else `internal_server_error` with
 * a message that reveals nothing. HTTP renders the result with its status, SMTP with `SMTP_REPLY`.
 */
export function toMailroomError(err: unknown): MailroomError {
  if (isMailroomError(err)) return err;
  if (isUnavailableError(err)) return serviceUnavailable();
  return new MailroomError('internal_server_error', 'An unexpected error occurred.');
}
