import { findOriginal } from '../report-message';
import { type ReportFormat, textRecipient } from './format';

// OpenSMTPD: "This is the MAILER-DAEMON, please DO NOT REPLY to this email." then
// "An error has occurred while attempting to deliver a message for the following list of
// recipients:" (or "A message is delayed for more than … for the following list of recipients:")
// and one "address: reply" line per recipient.
const INTRO = /This is the MAILER-DAEMON, please DO NOT REPLY to this e-?mail/;

export const opensmtpd: ReportFormat = {
  name: 'opensmtpd',
  read(message) {
    if (!INTRO.test(message.text)) return null;
    const delayed = /message is delayed for more than/i.test(message.text);
    const recipients = [...message.text.matchAll(/^([^\s<>@:]+@[^\s<>:]+): (.+)$/gm)].map((m) =>
      textRecipient(m[1], m[2] ?? '', { action: delayed ? 'delayed' : 'failed', permanent: !delayed }),
    );
    if (recipients.length === 0) return null;
    return { kind: 'dsn', recipients, original: findOriginal(message), format: 'opensmtpd' };
  },
};
