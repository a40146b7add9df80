import { missingHostHeader } from '@mailroom/core';
import type { RequestHandler } from 'express';

/** An HTTP/1.1 request without a Host header gets the contract's 400 (core's missingHostHeader), its connection closed. */
export function requireHostHeader(): RequestHandler {
  return (req, res, next) => {
    const refused = missingHostHeader(req);
    if (refused === null) return next();
    res.setHeader('Connection', 'close');
    next(refused);
  };
}
