import { collectDefaultMetrics, Registry } from 'prom-client';
import { safeEqual } from '../crypto';
import { MailroomError } from '../errors';

/**
 * A Prometheus registry for one service, with the process metrics prefixed by its name
 * (`mailroom_sender_process_cpu_seconds_total`). One per instance keeps test instances apart.
 */
export function createServiceRegistry(service: string): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: `mailroom_${service.replace(/-/g, '_')}_` });
  return registry;
}

/** METRICS_TOKEN, when set, guards /metrics: `Authorization: Bearer <it>`, compared in constant time. */
export function checkMetricsToken(authorization: string | undefined, expected: string | undefined): void {
  if (!expected) return;
  if (!authorization) throw new MailroomError('missing_api_key', 'Send "Authorization: Bearer <METRICS_TOKEN>".');
  if (!safeEqual(authorization, `Bearer ${expected}`)) throw new MailroomError('invalid_api_key', 'The metrics token is wrong.');
}
