/**
 * `pnpm dev:mailbox`: a catch-all SMTP server and a web viewer of what it caught, so mail sent
 * by a local Mailroom can be read without a real mail server or a certificate to trust.
 */
import { parseArgs } from 'node:util';
import { PortInUseError } from '@mailroom/core';
import { DevMailbox } from './lib/dev-mailbox/dev-mailbox';

function port(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) {
    process.stderr.write(`${flag} must be a port number from 0 to 65535 (0 picks a free one), not "${value}".\n`);
    process.exit(1);
  }
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'smtp-port': { type: 'string' }, 'http-port': { type: 'string' } } });
  const mailbox = new DevMailbox({
    smtpPort: port(values['smtp-port'], '--smtp-port', 1025),
    httpPort: port(values['http-port'], '--http-port', 8025),
    onCaught: (subject, to) => console.log(`caught "${subject}" for ${to.join(', ')}`),
    onError: (err) => console.error(`SMTP connection error: ${err.message}`),
  });
  try {
    await mailbox.start();
  } catch (err) {
    if (err instanceof PortInUseError) {
      process.stderr.write(`${err.message.replace(/; set (\S+)/, '; pass $1')}\n`);
      process.exit(1);
    }
    throw err;
  }
  console.log(
    [
      `Dev mailbox: catching all mail at ${mailbox.smtpUrl}; read it at ${mailbox.viewerUrl}`,
      'Send Mailroom\'s mail here by starting it with:',
      `  OUTBOUND_SMTP_URL=${mailbox.smtpUrl} pnpm start`,
      'Press Ctrl-C to stop (caught messages are kept in memory only).',
    ].join('\n'),
  );
  const stop = () => void mailbox.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`pnpm dev:mailbox failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
