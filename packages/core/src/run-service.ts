import { ConfigError } from './config';
import { withoutPassword } from './config-messages';
import { PORT_VARIABLES, PortInUseError, portInUseError } from './port-in-use';

/** A backing service could not be reached at start; the message says which and how to start it. */
export class DependencyUnavailableError extends Error {
  override readonly name = 'DependencyUnavailableError';

  constructor(dependency: 'PostgreSQL' | 'Redis', url: string, options?: { cause?: unknown }) {
    const variable = dependency === 'PostgreSQL' ? 'DATABASE_URL' : 'REDIS_URL';
    super(
      `Cannot reach ${dependency} at ${redactUrl(url)}: start it (for example \`docker compose up -d postgres redis\`) or point ${variable} at a running server.`,
      options,
    );
  }
}

/**
 * A URL without its password, in the user information or in a query parameter (`?password=`,
 * which pg and ioredis both take), fit for messages and logs.
 */
export function redactUrl(url: string): string {
  return withoutPassword(url);
}

/** What to tell a person whose service did not start: one sentence for the failures they can fix. */
function startFailure(name: string, err: unknown): string {
  if (err instanceof ConfigError || err instanceof DependencyUnavailableError || err instanceof PortInUseError) return err.message;
  // A listen that did not go through listenOn still carries the port; the service says which variable sets it.
  const variable = PORT_VARIABLES[name as keyof typeof PORT_VARIABLES];
  const portError = variable ? portInUseError(err, variable) : undefined;
  if (portError) return portError.message;
  return `failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
}

/**
 * Runs one service process: starts it, stops it gracefully on SIGTERM or SIGINT (a second
 * signal exits at once), and turns start-up failures into one clear sentence and exit code 1.
 */
export async function runService(name: string, start: () => Promise<() => Promise<void>>): Promise<void> {
  let stop: () => Promise<void>;
  try {
    stop = await start();
  } catch (err) {
    process.stderr.write(`${name}: ${startFailure(name, err)}\n`);
    process.exit(1);
  }
  let stopping = false;
  const shutdown = () => {
    if (stopping) process.exit(1);
    stopping = true;
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`${name}: error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
