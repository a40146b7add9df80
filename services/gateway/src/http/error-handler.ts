import { MailroomError, toMailroomError as toContractError, type Logger } from '@mailroom/core';
import type { ErrorRequestHandler, Response } from 'express';

/** Any error as a contract error; HTTP adds one case to core's mapping. */
function toMailroomError(err: unknown): MailroomError {
  // The router could not decode a path parameter (%ZZ): no such resource can exist.
  if (err instanceof URIError) return new MailroomError('not_found', 'The path is not valid URL encoding.');
  return toContractError(err);
}

/** Renders a contract error as JSON. The one place HTTP errors are rendered. */
function sendError(res: Response, error: MailroomError): void {
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
