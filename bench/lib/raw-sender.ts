/**
 * The deliver baseline, run as its own process: raw nodemailer sends COUNT messages to the sink
 * through one pooled transport (5 connections), at most IN_FLIGHT at a time, then reports over
 * IPC. Env: SINK_PORT, COUNT, IN_FLIGHT.
 */
import nodemailer from 'nodemailer';
import { SEND_BODY } from './workload';

export interface RawSenderReport {
  sent: number;
  failed: number;
  firstError?: string;
  /** From the first sendMail() to the last answer, ms. */
  ms: number;
}

async function main(): Promise<void> {
  const count = Number(process.env.COUNT);
  const inFlight = Number(process.env.IN_FLIGHT);
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: Number(process.env.SINK_PORT),
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: 5,
  });
  let next = 0;
  let sent = 0;
  let failed = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      next += 1;
      try {
        await transport.sendMail({
          from: SEND_BODY.from,
          to: SEND_BODY.to[0],
          subject: SEND_BODY.subject,
          html: SEND_BODY.html,
          text: SEND_BODY.text,
        });
        sent += 1;
      } catch (err) {
        failed += 1;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
  const ms = performance.now() - started;
  transport.close();
  const report: RawSenderReport = { sent, failed, ms, ...(firstError ? { firstError } : {}) };
  process.send?.(report, () => process.exit(0));
}

main().catch((err: unknown) => {
  process.stderr.write(`raw sender failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
