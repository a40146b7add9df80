/**
 * The deliver baseline, run as its own process: raw nodemailer sends COUNT messages to the sink
 * through one pooled transport (5 connections), at most IN_FLIGHT at a time, then reports over
 * IPC. Env: SINK_PORT, COUNT, IN_FLIGHT.
 */
import nodemailer from 'nodemailer';
import { runInLanes } from './lanes';
import { SEND_BODY } from './workload';

export type { LanesReport as RawSenderReport } from './lanes';

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
  const report = await runInLanes(count, inFlight, async () => {
    await transport.sendMail({
      from: SEND_BODY.from,
      to: SEND_BODY.to[0],
      subject: SEND_BODY.subject,
      html: SEND_BODY.html,
      text: SEND_BODY.text,
    });
  });
  transport.close();
  process.send?.(report, () => process.exit(0));
}

main().catch((err: unknown) => {
  process.stderr.write(`raw sender failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
