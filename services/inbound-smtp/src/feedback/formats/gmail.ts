import type { DsnRecipient } from '../report';
import { findOriginal } from '../report-message';
import { statusFromText } from '../status-codes';
import { type ReportFormat, textRecipient } from './format';

// Gmail's text (the human part of its reports, or all that survives a forward): the current
// "** Address not found **" / "** Message blocked **" / "** Delivery incomplete **" headings
// with "Your message wasn't delivered to X because …" and "The response was: …", and the older
// "Delivery to the following recipient failed permanently:" with "Technical details of
// permanent failure:" (or "temporary"), a paragraph that quotes the remote reply inline ("The
// error that the other server returned was: 550 550 5.1.1 user unknown"). A heading without a
// reply code gives the code the heading states (address not found → 5.1.1, domain not found →
// 5.1.2, blocked → 5.7.1).
const HEADING = /\*\* (Address not found|Domain not found|Message blocked|Message not delivered|Delivery incomplete|Message rejected) \*\*/;
const OLD = /Delivery to the following recipient (failed permanently|has been delayed):/;
const HEADING_CODES: Record<string, string> = { 'Address not found': '5.1.1', 'Domain not found': '5.1.2', 'Message blocked': '5.7.1', 'Message rejected': '5.7.1' };

export const gmail: ReportFormat = {
  name: 'gmail',
  read(message) {
    const text = message.text;
    const heading = HEADING.exec(text)?.[1];
    const old = OLD.exec(text)?.[1];
    if (!heading && !old) return null;
    const delayed = heading === 'Delivery incomplete' || old === 'has been delayed';
    const action = delayed ? 'delayed' : 'failed';
    const response = responseText(text) || technicalDetails(text);
    const addresses = new Set<string>();
    for (const m of text.matchAll(/(?:wasn't delivered to|problem delivering your message to|couldn't be delivered to) <?([^\s<>@]+@[^\s<>]*[A-Za-z0-9])>?(?=[.,]?(?:\s|$))/g)) if (m[1]) addresses.add(m[1]);
    if (old) for (const m of text.slice(text.search(OLD)).matchAll(/^[ \t]{2,}([^\s<>@]+@[^\s<>]+)[ \t]*$/gm)) if (m[1]) addresses.add(m[1]);
    const domainMissing = /because the domain \S+ couldn't be found/.test(text);
    const explanation = response || (/^(?:Your message wasn't delivered|There was a temporary problem)[^\n]*/m.exec(text)?.[0] ?? '');
    let status = statusFromText(response, { permanent: !delayed });
    if (!status && heading && !delayed) status = domainMissing ? '5.1.2' : (HEADING_CODES[heading] ?? null);
    const recipients: DsnRecipient[] = [...addresses].map((a) => textRecipient(a, explanation, { action, status }));
    if (recipients.length === 0) recipients.push(textRecipient(undefined, explanation, { action, status }));
    return { kind: 'dsn', recipients, original: findOriginal(message), format: 'gmail' };
  },
};

/** The paragraph after "The response was:" (or "The error that the other server returned was:"). */
function responseText(text: string): string {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^\s*(?:The response (?:from the remote server )?was|The error that the other server returned was):?\s*$/.test(l));
  if (at < 0) return '';
  let start = at + 1;
  while (start < lines.length && start < at + 5 && !lines[start]?.trim()) start += 1;
  const paragraph: string[] = [];
  for (let j = start; j < lines.length && lines[j]?.trim() && paragraph.length < 20; j++) paragraph.push(lines[j] ?? '');
  return paragraph.join('\n');
}

/** The paragraph that starts with the old text's "Technical details of permanent failure:" heading, heading included. */
function technicalDetails(text: string): string {
  const at = text.search(/^Technical details of (?:permanent|temporary) failure:/m);
  if (at < 0) return '';
  return text.slice(at).split(/\n[ \t]*\n/)[0]?.slice(0, 4000) ?? '';
}
