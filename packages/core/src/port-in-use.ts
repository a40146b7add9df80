import { once } from 'node:events';
import type { Server } from 'node:net';

/** The variable that sets the port each service opens, for messages that tell people what to change. */
export const PORT_VARIABLES = { gateway: 'API_PORT', tracking: 'TRACKING_PORT', 'inbound-smtp': 'SMTP_PORT' } as const;

/** A service could not open its port; the message names the variable that moves it. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';

  constructor(
    readonly port: number,
    readonly variable: string,
    reason: 'in_use' | 'denied' = 'in_use',
    options?: { cause?: unknown },
  ) {
    super(
      reason === 'in_use'
        ? `Port ${port} is already in use; set ${variable} to a free port.`
        : `Port ${port} cannot be opened without privileges; set ${variable} to a port above 1023.`,
      options,
    );
  }
}

/** Node's error for a failed listen: `code` and, for EADDRINUSE and EACCES, the `port`. */
export function portErrorOf(err: unknown): { code: 'EADDRINUSE' | 'EACCES'; port: number } | undefined {
  const { code, port } = (err ?? {}) as { code?: unknown; port?: unknown };
  if ((code === 'EADDRINUSE' || code === 'EACCES') && typeof port === 'number') return { code, port };
  return undefined;
}

/** The PortInUseError naming `variable` for a listen that failed on a taken or privileged port; undefined for any other error. */
export function portInUseError(err: unknown, variable: string): PortInUseError | undefined {
  const failed = portErrorOf(err);
  return failed && new PortInUseError(failed.port, variable, failed.code === 'EADDRINUSE' ? 'in_use' : 'denied', { cause: err });
}

/**
 * `server.listen(port, host)`, resolved once listening; a port that is taken or privileged
 * becomes a PortInUseError naming `variable`.
 */
export async function listenOn(server: Server, port: number, host: string, variable: string): Promise<void> {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (err) {
    throw portInUseError(err, variable) ?? err;
  }
}

/**
 * `listenOn` the given host, or, without one, every address of the machine, IPv6 and IPv4: `::`,
 * which Node opens dual-stack (an IPv4 peer shows as `::ffff:a.b.c.d`, which `clientAddress`,
 * `clientBlock` and smtp-server write as the IPv4 address), else `0.0.0.0` on a host without
 * IPv6. Every service listens so: peers reach the MX, and mail clients the tracking links, over
 * IPv6 when the name has an AAAA record.
 */
export async function listenOnHost(server: Server, port: number, host: string | undefined, variable: string): Promise<void> {
  if (host !== undefined) return listenOn(server, port, host, variable);
  return listenOnEveryAddress(server, port, variable);
}

async function listenOnEveryAddress(server: Server, port: number, variable: string): Promise<void> {
  try {
    await listenOn(server, port, '::', variable);
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (code !== 'EAFNOSUPPORT' && code !== 'EADDRNOTAVAIL') throw err;
    await listenOn(server, port, '0.0.0.0', variable);
  }
}
