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
  // No error may be kept by a cache, those of paths no route took (404, 405, a bad Host) included.
  if (!res.hasHeader('cache-control')) res.setHeader('Cache-Control', 'no-store');
  res.status(error.statusCode).json(error.toBody());
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = toMailroomError(err);
    const fields = { requestId: res.getHeader('x-request-id'), method: req.method, path: req.path, name: error.name };
    // A 503 of our own (a full body budget, shutting down) is a refusal, not a failure: no stack.
    if (err instanceof MailroomError && error.statusCode === 503) logger.warn({ ...fields, reason: err.message }, 'request refused');
    else if (error.statusCode >= 500) logger.error({ err, ...fields }, 'request failed');
    sendError(res, error);
  };
}
