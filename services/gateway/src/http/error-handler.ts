import { isMailroomError, isUnavailableError, MailroomError, serviceUnavailable, type Logger } from '@mailroom/core';
import type { ErrorRequestHandler, Response } from 'express';

/** body-parser's error types, as the contract names them. */
const BODY_ERRORS: Record<string, () => MailroomError> = {
  'entity.parse.failed': () => new MailroomError('invalid_json', 'The request body is not valid JSON.'),
  'entity.too.large': () => new MailroomError('payload_too_large', 'The request body is too large.'),
  'entity.verify.failed': () => new MailroomError('invalid_json', 'The request body could not be read.'),
  'encoding.unsupported': () => new MailroomError('invalid_json', 'The request body has an unsupported content encoding.'),
  'charset.unsupported': () => new MailroomError('invalid_json', 'The request body has an unsupported charset; send UTF-8.'),
  'request.size.invalid': () => new MailroomError('invalid_json', 'The request body does not match its Content-Length.'),
  'request.aborted': () => new MailroomError('invalid_json', 'The request body was not received completely.'),
};

/** Turns any error into the contract's JSON body. The one place HTTP errors are rendered. */
export function toMailroomError(err: unknown): MailroomError {
  if (isMailroomError(err)) return err;
  // The router could not decode a path parameter (%ZZ): no such resource can exist.
  if (err instanceof URIError) return new MailroomError('not_found', 'The path is not valid URL encoding.');
  const type = (err as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && BODY_ERRORS[type]) return BODY_ERRORS[type]();
  if (isUnavailableError(err)) return serviceUnavailable();
  return new MailroomError('internal_server_error', 'An unexpected error occurred.');
}

export function sendError(res: Response, error: MailroomError): void {
  if (res.headersSent) return;
  res.status(error.statusCode).json(error.toBody());
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = toMailroomError(err);
    if (error.statusCode >= 500) {
      logger.error({ err, method: req.method, path: req.path, name: error.name }, 'request failed');
    }
    sendError(res, error);
  };
}
