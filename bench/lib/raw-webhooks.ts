/**
 * The webhooks baseline, run as its own process: raw undici posts COUNT event bodies (the same
 * JSON the dispatcher sends) to URL through one pool, at most IN_FLIGHT at a time, reading each
 * response, then reports over IPC. No signing, no database, no queue. Env: URL, COUNT, IN_FLIGHT.
 */
import { Pool } from 'undici';
import { runInLanes } from './lanes';
import { webhookBody } from './workload';

export type { LanesReport as RawWebhooksReport } from './lanes';

async function main(): Promise<void> {
  const url = new URL(process.env.URL ?? '');
  const count = Number(process.env.COUNT);
  const inFlight = Number(process.env.IN_FLIGHT);
  const pool = new Pool(url.origin, { connections: inFlight });
  const report = await runInLanes(count, inFlight, async (i) => {
    const res = await pool.request({
      path: url.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: webhookBody(`evt_raw${String(i).padStart(10, '0')}`),
    });
    await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}`);
  });
  await pool.close();
  process.send?.(report, () => process.exit(0));
}

main().catch((err: unknown) => {
  process.stderr.write(`raw webhooks failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
