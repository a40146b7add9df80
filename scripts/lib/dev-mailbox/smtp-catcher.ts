import { SMTPServer } from 'smtp-server';
import type { CaughtMessages } from './caught-messages';

// Real messages with attachments fit; anything larger is refused with 552 at SIZE.
const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;

/**
 * A catch-all SMTP server: accepts any sender and recipient, offers neither STARTTLS nor AUTH,
 * so a client given `smtp://host:port` delivers in plain text at once, with no certificate to
 * trust. For local development only: it must never face a network.
 */
export function createSmtpCatcher(messages: CaughtMessages, onCaught: (subject: string, to: string[]) => void): SMTPServer {
  return new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: MAX_MESSAGE_BYTES,
    banner: 'Mailroom dev mailbox: catches everything, delivers nothing',
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          callback(Object.assign(new Error('Message too large'), { responseCode: 552 }));
          return;
        }
        const envelope = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
        };
        messages.add(Buffer.concat(chunks), envelope).then(
          (message) => {
            onCaught(message.subject, envelope.rcptTo);
            callback();
          },
          (err: unknown) => callback(Object.assign(new Error(`Could not parse the message: ${String(err)}`), { responseCode: 554 })),
        );
      });
    },
  });
}
