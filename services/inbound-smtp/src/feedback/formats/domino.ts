import type { DsnRecipient } from '../report';
import { findOriginal } from '../report-message';
import { type ReportFormat, textRecipient } from './format';

// Lotus Notes / HCL Domino: "Your message … was not delivered to: <address> because: <reason>",
// subject "DELIVERY FAILURE: …" or "Delivery Failure Report". Reasons carry no codes; "User x
// not listed in Domino Directory" (or the older "public Name & Address Book") is a 5.1.1.
const PAIR = /was not delivered to:\s*\n\s*(\S+?@\S+?|[^\n]+?)\s*\n\s*because:\s*\n\s*([^\n]+(?:\n[ \t]+\S[^\n]*)*)/g;

export const domino: ReportFormat = {
  name: 'domino',
  read(message) {
    const recipients: DsnRecipient[] = [];
    for (const m of message.text.matchAll(PAIR)) {
      recipients.push(textRecipient(m[1], m[2] ?? '', { action: 'failed', permanent: true }));
    }
    if (recipients.length === 0) return null;
    return { kind: 'dsn', recipients, original: findOriginal(message), format: 'domino' };
  },
};
