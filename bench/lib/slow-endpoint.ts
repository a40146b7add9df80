/**
 * The scale scenario's far end, run as its own process so its work is not the bench's: an SMTP
 * sink (KIND=smtp) or a webhook receiver (KIND=http) that holds each reply DELAY_MS, as a remote
 * MX or a customer's endpoint does. Listens on PORT; over IPC it answers `reset` (a new round)
 * and `report` (the round so far, times as Unix ms). Env: KIND, PORT, DELAY_MS.
 */
import { SmtpSink } from './smtp-sink';
import { WebhookReceiver } from './webhook-receiver';

/** What the far end saw in one round. */
export interface EndpointReport {
  /** Messages accepted (smtp) or requests answered (http). */
  received: number;
  /** Of those, repeats of a Message-ID + recipient (smtp) or a webhook-id + endpoint (http). */
  duplicates: number;
  /** Unix ms of the round's first connection (smtp) or request (http), and of its last answer. */
  firstAt?: number;
  lastAt?: number;
}

export type EndpointCommand = 'reset' | 'report';

const unixMs = (t: number | undefined) => (t === undefined ? undefined : Math.round(performance.timeOrigin + t));

async function main(): Promise<void> {
  const port = Number(process.env.PORT);
  const delayMs = Number(process.env.DELAY_MS ?? '0');
  let reset: () => void;
  let report: () => EndpointReport;
  let close: () => Promise<void>;
  if (process.env.KIND === 'smtp') {
    const sink = new SmtpSink({ replyDelayMs: delayMs });
    await sink.start(port);
    reset = () => sink.reset();
    report = () => {
      const r = sink.current;
      return { received: r.messages, duplicates: r.duplicates, firstAt: unixMs(r.firstConnectionAt), lastAt: unixMs(r.lastMessageAt) };
    };
    close = () => sink.close();
  } else if (process.env.KIND === 'http') {
    const receiver = new WebhookReceiver({ delayMs });
    await receiver.start(port);
    reset = () => receiver.reset();
    report = () => {
      const r = receiver.current;
      return { received: r.requests, duplicates: r.duplicates, firstAt: unixMs(r.firstRequestAt), lastAt: unixMs(r.lastRequestAt) };
    };
    close = () => receiver.close();
  } else {
    throw new Error(`KIND must be smtp or http, not ${JSON.stringify(process.env.KIND)}`);
  }
  process.on('message', (command: EndpointCommand) => {
    if (command === 'reset') reset();
    process.send?.(report());
  });
  process.on('SIGTERM', () => void close().finally(() => process.exit(0)));
}

main().catch((err: unknown) => {
  process.stderr.write(`slow endpoint failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
