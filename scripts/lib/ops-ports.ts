import type { ServiceCommand } from './discover-services';

// The services that answer /healthz, /readyz and /metrics on their own HTTP port (API_PORT, TRACKING_PORT).
const SERVED_ON_OWN_PORT: ReadonlySet<string> = new Set(['gateway', 'tracking']);

/** A worker service and the port its ops endpoints get. */
export interface OpsPort {
  readonly service: string;
  readonly port: number;
}

/**
 * `OPS_PORT` is the port of the ops endpoints (`/healthz`, `/readyz`, `/metrics`) of each service
 * without an HTTP port of its own (the sender, the MX, the webhook dispatcher): one per process,
 * as each runs in its own pod. `pnpm start` runs them all on one host, where they cannot share it,
 * so each gets its own, in name order: `OPS_PORT`, `OPS_PORT + 1`, … (0: each any free port).
 * Returns the services with `OPS_PORT` set in their environment, and the ports given.
 */
export function assignOpsPorts(services: readonly ServiceCommand[], opsPort: number | undefined): { services: ServiceCommand[]; ports: OpsPort[] } {
  if (opsPort === undefined) return { services: [...services], ports: [] };
  const ports: OpsPort[] = [];
  const assigned = services.map((service) => {
    if (SERVED_ON_OWN_PORT.has(service.name)) return service;
    const port = opsPort === 0 ? 0 : opsPort + ports.length;
    if (port > 65_535) throw new RangeError(`OPS_PORT=${opsPort} leaves no port for ${service.name} (it would get ${port}); set OPS_PORT to ${65_536 - services.length} or lower.`);
    ports.push({ service: service.name, port });
    return { ...service, env: { ...service.env, OPS_PORT: String(port) } };
  });
  return { services: assigned, ports };
}
