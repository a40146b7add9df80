import type { DsnRecipient } from '../report';
import { findOriginal } from '../report-message';
import { beforeCopy, type ReportFormat, textRecipient } from './format';

// Microsoft Exchange 2007+ and Office 365 / Exchange Online ("Delivery has failed to these
// recipients or groups:", "Delivery is delayed to …"), whose "Diagnostic information for
// administrators" lists each address followed by "Remote Server returned '550 5.1.1 …'" or
// "#550 5.1.1 RESOLVER.ADR.RecipNotFound; not found ##"; Exchange 2000/2003 ("Your message
// did not reach some or all of the intended recipients", "<host #5.1.1>"); and the Internet Mail
// Service of Exchange 5.5 ("did not reach the following recipient(s):", "address on date", an
// indented explanation with no code: "The recipient name is not recognized" is a 5.1.1).
const INTRO = /Delivery has failed to these recipients or groups|Delivery is delayed to these recipients or groups|did not reach some or all of the intended recipients|did not reach the following recipient\(s\)|Remote Server returned '/;
const NOT_RECOGNIZED = /The recipient name is not recognized/i;
const COPY = [/^Original message headers:/m, /^-{3,}[ \t]*Original Message/im];
const ADDRESS = /^(?:[^<>(\n]*[<(]|[ \t]*)([^\s<>()@]+@[^\s<>()]+?)[>)]?[ \t]*$/;
const ADDRESS_2003 = /^\s*([^\s<>@]+@[^\s<>]+) on .+$/;

export const exchange: ReportFormat = {
  name: 'exchange',
  read(message) {
    if (!INTRO.test(message.text)) return null;
    const { head, end } = beforeCopy(message.text, COPY);
    const delayed = /Delivery is delayed to these recipients/.test(head);
    const action = delayed ? 'delayed' : 'failed';
    const lines = head.split('\n');
    const recipients: DsnRecipient[] = [];
    const diagnostics = lines.findIndex((l) => /Diagnostic information for administrators/.test(l));
    if (diagnostics >= 0) {
      // An address line, then (within a few lines) its server reply.
      for (let i = diagnostics + 1; i < lines.length; i++) {
        const address = ADDRESS.exec(lines[i] ?? '')?.[1];
        if (!address) continue;
        const reply = lines.slice(i + 1, i + 4).find((l) => /^\s*(?:#|Remote Server returned ')/.test(l));
        if (!reply) continue;
        const text = reply.trim().replace(/^Remote Server returned '(.*)'$/, '$1').replace(/^#/, '').replace(/#+$/, '').trim();
        recipients.push(textRecipient(address, text, { action, permanent: !delayed }));
      }
    }
    if (recipients.length === 0) {
      // Exchange 2003: "addr on <date>" then indented explanation ending "<host #5.1.1>";
      // hMailServer the address alone under "could not be reached:", then indented lines ending
      // "Remote server replied: 550 5.1.1 …", which is the diagnostic.
      const reached = lines.findIndex((l) => /^The following recipient\(s\) could not be reached:/.test(l));
      for (let i = 0; i < lines.length; i++) {
        const dated = ADDRESS_2003.exec(lines[i] ?? '')?.[1];
        const address = dated ?? (reached >= 0 && i > reached ? ADDRESS.exec(lines[i] ?? '')?.[1] : undefined);
        if (!address) continue;
        const body: string[] = [];
        for (let j = i + 1; j < lines.length && /^(?: {3,}|\t)\s*\S/.test(lines[j] ?? ''); j++) body.push(lines[j] ?? '');
        if (!dated && body.length === 0) continue;
        // An address quoted in the explanation (`hMailServer sent: RCPT TO:<a@x>`) starts no block.
        i += body.length;
        const replied = body.map((l) => /^\s*Remote server replied:\s*(.+)$/i.exec(l)?.[1]).find((r) => r !== undefined);
        const explanation = replied ?? body.join('\n');
        const status = NOT_RECOGNIZED.test(explanation) && !/[245]\.\d{1,3}\.\d{1,3}/.test(explanation) ? { status: '5.1.1' } : {};
        recipients.push(textRecipient(address, explanation, { action, permanent: !delayed, ...status }));
      }
    }
    if (recipients.length === 0) {
      // Only the user-facing part: the addresses under the heading, then the explanation.
      const at = lines.findIndex((l) => /(?:failed|delayed) to these recipients or groups/.test(l));
      const explanation = lines.slice(at + 1).filter((l) => l.trim() && !ADDRESS.test(l)).slice(0, 3).join(' ');
      for (const l of lines.slice(at + 1, at + 10)) {
        const address = ADDRESS.exec(l)?.[1];
        if (address) recipients.push(textRecipient(address, explanation, { action, permanent: !delayed }));
      }
    }
    if (recipients.length === 0) return null;
    return { kind: 'dsn', recipients, original: findOriginal(message, end), format: 'exchange' };
  },
};
