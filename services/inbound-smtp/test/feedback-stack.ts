import { type SendingStack, startSendingStack } from '../../../test/support/sending';
import { SmtpSink } from '../../../test/support/smtp-sink';
import { startTestMx, type TestMx } from './smtp-support';

/** What the feedback tests run: the sender delivering to a local SMTP sink, and the real MX receiving the reports about it. */
export interface FeedbackStack {
  sink: SmtpSink;
  /** The gateway and sender (`s.api` sends), on its own database. */
  s: SendingStack;
  /** The MX on the same database, processing what it stores. */
  t: TestMx;
  close(): Promise<void>;
}

/**
 * Mail really sent by the sender to a local SMTP sink, whose MAIL FROM is each recipient's VERP
 * return path at `bounceDomain`, and the real MX that reports sent there reach (reconciling every
 * second, so it processes what it stores without a queue wake-up).
 */
export async function startFeedbackStack(name: string, bounceDomain: string, publicApiUrl: string): Promise<FeedbackStack> {
  const sink = await new SmtpSink({ starttls: false }).start();
  const s = await startSendingStack(name, { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, BOUNCE_DOMAIN: bounceDomain, ALLOW_SIGNUP: 'true' });
  const t = await startTestMx({ database: s.t.database, env: { BOUNCE_DOMAIN: bounceDomain, PUBLIC_API_URL: publicApiUrl, RECONCILE_INTERVAL_SECONDS: '1' } });
  return {
    sink,
    s,
    t,
    async close() {
      await t.close();
      await s.close();
      await sink.stop();
    },
  };
}
