/**
 * The image's HEALTHCHECK. One image runs every service, and the health check cannot see which
 * one this container runs, so it asks each port a Mailroom service may serve /healthz on here
 * (OPS_PORT of the workers, API_PORT of the gateway, TRACKING_PORT of tracking) and the container
 * is healthy when one of them answers 200. Each container has its own loopback, so only this
 * container's service can answer. Exit 0 healthy, 1 not.
 */
import { loadConfig } from '../../packages/core/src/config';

const TIMEOUT_MS = 3_000;

async function answersHealthz(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    return res.status === 200;
  } catch {
    return false;
  }
}

async function main(): Promise<boolean> {
  const config = loadConfig();
  const ports = [config.opsPort, config.apiPort, config.trackingPort].filter((p): p is number => p !== undefined && p > 0);
  for (const port of new Set(ports)) if (await answersHealthz(port)) return true;
  return false;
}

main().then(
  (healthy) => process.exit(healthy ? 0 : 1),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
