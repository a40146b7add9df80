import { isMailroomError, isUnavailableError, MailroomError, serviceUnavailable, type Logger } from '@mailroom/core';
import type { ErrorRequestHandler, Response } from 'express';

/** Turns any error into the contract's JSON body. The one place HTTP errors are rendered. */
export function toMailroomError(err: unknown): MailroomError {
  if (isMailroomError(err)) return err;
  // The router could not decode a path parameter (%ZZ): no such resource can exist.
  if (err instanceof URIError) return new MailroomError('not_found', 'The path is not valid URL encoding.');
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
      logger.error({ err, requestId: res.getHeader('x-request-id'), method: req.method, path: req.path, name: error.name }, 'request failed');
    }
    sendError(res, error);
  };
}
