import { findOriginal } from '../report-message';
import { type ReportFormat, textRecipient } from './format';

// Verizon Wireless (vtext.com, vzwpix.com) text bounces: "Error: Invalid user address", then
// "Error message below:" with the remote reply ("550 - Requested action not taken: no such user
// here") and "Message details:" listing the envelope, whose "RCPT TO:" line names the recipient.
const REPLY_HEADING = /^Error message below:[ \t]*$/m;
const DETAILS = /^Message details:[ \t]*$/m;

export const verizon: ReportFormat = {
  name: 'verizon',
  read(message) {
    const heading = REPLY_HEADING.exec(message.text);
    if (!heading || !DETAILS.test(message.text)) return null;
    const reply = message.text.slice(heading.index + heading[0].length).trimStart().split('\n')[0] ?? '';
    const address = /^[ \t]*RCPT TO:[ \t]*<?([^\s<>@]+@[^\s<>]+?)>?[ \t]*$/m.exec(message.text)?.[1];
    if (!reply.trim() || !address) return null;
    return { kind: 'dsn', recipients: [textRecipient(address, reply, { action: 'failed', permanent: true })], original: findOriginal(message), format: 'verizon' };
  },
};
