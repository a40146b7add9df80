/**
 * The webhooks baseline, run as its own process: raw undici posts COUNT event bodies (the same
 * JSON the dispatcher sends) to URL through one pool, at most IN_FLIGHT at a time, reading each
 * response, then reports over IPC. No signing, no database, no queue. Env: URL, COUNT, IN_FLIGHT.
 */
import { Pool } from 'undici';
import { webhookBody } from './workload';

export interface RawWebhooksReport {
  sent: number;
  failed: number;
  firstError?: string;
  ms: number;
}

async function main(): Promise<void> {
  const url = new URL(process.env.URL ?? '');
  const count = Number(process.env.COUNT);
  const inFlight = Number(process.env.IN_FLIGHT);
  const pool = new Pool(url.origin, { connections: inFlight });
  let next = 0;
  let sent = 0;
  let failed = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const i = next++;
      try {
        const res = await pool.request({
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: webhookBody(`evt_raw${String(i).padStart(10, '0')}`),
        });
        await res.body.text();
        if (res.statusCode >= 200 && res.statusCode < 300) sent += 1;
        else throw new Error(`HTTP ${res.statusCode}`);
      } catch (err) {
        failed += 1;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
  const ms = performance.now() - started;
  await pool.close();
  const report: RawWebhooksReport = { sent, failed, ms, ...(firstError ? { firstError } : {}) };
  process.send?.(report, () => process.exit(0));
}

main().catch((err: unknown) => {
  process.stderr.write(`raw webhooks failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
