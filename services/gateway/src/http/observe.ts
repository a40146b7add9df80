import type { Logger } from '@mailroom/core';
import type { RequestHandler } from 'express';
import type { Metrics } from '../metrics';

interface Series {
  count: () => void;
  time: (seconds: number) => void;
}

/**
 * One structured log line and one metric sample per request, labelled by route template
 * (never the raw path, which holds ids). Headers are not logged: they carry credentials.
 */
export function observeRequests(logger: Logger, metrics: Metrics): RequestHandler {
  // prom-client hashes a label object on every call; resolve each label set once instead.
  const series = new Map<string, Series>();
  const seriesOf = (method: string, route: string, status: number): Series => {
    const key = `${method} ${status} ${route}`;
    let found = series.get(key);
    if (!found) {
      const counter = metrics.httpRequests.labels(method, route, String(status));
      const histogram = metrics.httpDuration.labels(method, route);
      found = { count: () => counter.inc(), time: (seconds) => histogram.observe(seconds) };
      series.set(key, found);
    }
    return found;
  };
  const logsInfo = logger.isLevelEnabled('info');

  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = req.route?.path ? String(req.route.path) : 'unmatched';
      const s = seriesOf(req.method, route, res.statusCode);
      s.count();
      s.time(seconds);
      if (res.statusCode >= 500 || logsInfo) {
        const requestId = res.getHeader('x-request-id');
        const line = { requestId, method: req.method, route, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1000) };
        if (res.statusCode >= 500) logger.error(line, 'request');
        else logger.info(line, 'request');
      }
    });
    next();
  };
}
