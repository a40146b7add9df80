import type { DsnRecipient } from '../report';
import { findOriginal } from '../report-message';
import { type ReportFormat, textRecipient } from './format';

// Lotus Notes / HCL Domino: "Your message … was not delivered to: <address> because: <reason>",
// subject "DELIVERY FAILURE: …" or "Delivery Failure Report". Reasons carry no codes; "User x
// not listed in Domino Directory" (or the older "public Name & Address Book", or a Japanese
// installation's "ユーザー x は Domino ディレクトリには見つかりません", in the ISO-2022-JP of its part)
// is a 5.1.1: @mailroom/core's NO_SUCH_USER, which also reads the same words in its
// delivery-status part's Diagnostic-Code.
// Read line by line (no patterns spanning blank lines, which backtrack on hostile input).

export const domino: ReportFormat = {
  name: 'domino',
  read(message) {
    const lines = message.text.split('\n');
    const recipients: DsnRecipient[] = [];
    for (let i = 0; i < lines.length; i++) {
      if (!/was not delivered to:\s*$/.test(lines[i] ?? '')) continue;
      const address = nextFilled(lines, i + 1);
      const because = address ? nextFilled(lines, address.at + 1) : null;
      if (!address || !because || !/^\s*because:\s*$/.test(because.line)) continue;
      const reason = nextFilled(lines, because.at + 1);
      if (!reason) continue;
      const body = [reason.line];
      for (let j = reason.at + 1; j < lines.length && /^[ \t]+\S/.test(lines[j] ?? '') && body.length < 20; j++) body.push(lines[j] ?? '');
      recipients.push(textRecipient(address.line.trim(), body.join('\n'), { action: 'failed', permanent: true }));
      i = reason.at;
    }
    if (recipients.length === 0) return null;
    return { kind: 'dsn', recipients, original: findOriginal(message), format: 'domino' };
  },
};

/** The next line with text, at most a few blank lines on. */
function nextFilled(lines: string[], from: number): { line: string; at: number } | null {
  for (let j = from; j < lines.length && j < from + 5; j++) {
    const line = lines[j] ?? '';
    if (line.trim()) return { line, at: j };
  }
  return null;
}
