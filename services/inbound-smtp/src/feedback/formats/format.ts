import type { ReportMessage } from '../report-message';
import type { DsnAction, DsnRecipient, Report } from '../report';
import { actionFromStatus, statusFromText } from '../status-codes';
import { bareAddress, oneLine } from '../text';

/** One family of reports. `read` returns null when the message is not of this family. */
export interface ReportFormat {
  name: string;
  read(message: ReportMessage): Report | null;
}

/** The text before the first of `markers` (where the copy of the original starts), and where that is. */
export function beforeCopy(text: string, markers: RegExp[]): { head: string; end: number } {
  let end = text.length;
  for (const marker of markers) {
    const m = marker.exec(text);
    if (m && m.index < end) end = m.index;
  }
  return { head: text.slice(0, end), end };
}

/** A recipient read from free text: status found in (or derived from) its explanation. */
export function textRecipient(
  address: string | undefined,
  explanation: string,
  options: { action?: DsnAction; permanent?: boolean; status?: string | null } = {},
): DsnRecipient {
  const diagnostic = oneLine(explanation).slice(0, 2000) || null;
  const status = options.status !== undefined ? options.status : statusFromText(explanation, { permanent: options.permanent });
  const recipient: DsnRecipient = { action: options.action ?? (status ? actionFromStatus(status) : 'failed'), status, diagnostic };
  if (address) recipient.finalRecipient = bareAddress(address);
  return recipient;
}

/**
 * Blocks that start at a line matched by `start` (group 1 the address, group 2 optional text on
 * that line) and run to the next such line or a line matched by `stop`.
 */
export function addressBlocks(text: string, start: RegExp, stop?: RegExp): { address: string; body: string }[] {
  const blocks: { address: string; body: string }[] = [];
  let current: { address: string; lines: string[] } | null = null;
  for (const line of text.split('\n')) {
    const m = start.exec(line);
    if (m?.[1]) {
      if (current) blocks.push({ address: current.address, body: current.lines.join('\n') });
      current = { address: m[1], lines: [m[2] ?? ''] };
      continue;
    }
    if (current && stop?.test(line)) {
      blocks.push({ address: current.address, body: current.lines.join('\n') });
      current = null;
      continue;
    }
    current?.lines.push(line);
  }
  if (current) blocks.push({ address: current.address, body: current.lines.join('\n') });
  return blocks;
}
