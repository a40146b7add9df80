import type { Logger } from '@mailroom/core';
import type { RequestHandler } from 'express';
import type { Metrics } from '../metrics';

/**
 * One structured log line and one metric sample per request, labelled by route template
 * (never the raw path, which holds ids). Headers are not logged: they carry credentials.
 */
export function observeRequests(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = req.route?.path ? String(req.route.path) : 'unmatched';
      metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ method: req.method, route }, seconds);
      const level = res.statusCode >= 500 ? 'error' : 'info';
      logger[level]({ method: req.method, route, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1000) }, 'request');
    });
    next();
  };
}
