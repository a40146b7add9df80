import { createServer } from 'node:net';
import { type Config, listenOnHost, PORT_VARIABLES } from '@mailroom/core';

/** Opens and closes `port` on every address, IPv6 and IPv4, as the services do; throws PortInUseError naming `variable`. */
async function checkPort(port: number, variable: string): Promise<void> {
  const server = createServer();
  await listenOnHost(server, port, undefined, variable);
  await new Promise((resolve) => server.close(resolve));
}

/**
 * Checks, before anything starts, that each port the named services will open is free, so a
 * port held by another program is reported as such rather than answering in Mailroom's place.
 */
export async function checkPorts(config: Readonly<Config>, services: ReadonlySet<string>, opsPorts: readonly { port: number }[] = []): Promise<void> {
  const ports: Record<keyof typeof PORT_VARIABLES, number> = {
    gateway: config.apiPort,
    tracking: config.trackingPort,
    'inbound-smtp': config.smtpPort,
  };
  for (const [service, variable] of Object.entries(PORT_VARIABLES) as [keyof typeof PORT_VARIABLES, string][]) {
    // Port 0 means "any free port", which cannot be taken.
    if (services.has(service) && ports[service] !== 0) await checkPort(ports[service], variable);
  }
  for (const { port } of opsPorts) if (port !== 0) await checkPort(port, 'OPS_PORT');
}
