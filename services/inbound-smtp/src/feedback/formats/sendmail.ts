import type { DsnRecipient } from '../report';
import { findOriginal } from '../report-message';
import { addressBlocks, beforeCopy, type ReportFormat, textRecipient } from './format';

// Sendmail: "----- The following addresses had permanent fatal errors -----" (or "transient
// non-fatal errors" in a "Warning: could not send message for past 4 hours" delay), each
// "<address>" followed by "(reason: 550 5.1.1 …)", then "----- Transcript of session follows
// -----" with the remote replies. Without an address list, the transcript's replies are read:
// "550 5.1.1 <a@x>... User unknown", or sendmail V5's "554 <a@x>... 550 Host unknown" with no
// enhanced code. A local mailer's own finding in the transcript ("mail.local: unknown user: a",
// then sendmail's summary "554 <a@x>... Service unavailable") is read with the reply.
const TRANSCRIPT = /-{3,} Transcript of session follows -{3,}/;
const SECTION = /^[ \t]*-{3,} The following addresses had (permanent fatal|transient non-fatal) errors -{3,}[ \t]*$/m;
// A multipart/report whose boundary lines were lost is read as text: the delivery-status fields
// follow the transcript and the returned message follows them with no marker, from its
// Return-Path (sendmail writes the queued message's own first).
const COPY = [/^[ \t]*-{3,} (?:Original message follows|Message header follows|Unsent message follows|Returned mail follows)/im, /^Return-Path:[ \t]*</m];
// Lines of a transcript that are not a local mailer's: an SMTP reply (`<<< 550 …`, `550 …`), a
// command sent (`>>> RCPT To:<…>`), sendmail's commentary (`... while talking to mx.:`).
const PROTOCOL_LINE = /^(?:<<<|>>>|\.\.\.|[245]\d\d[ -])/;

export const sendmail: ReportFormat = {
  name: 'sendmail',
  read(message) {
    const section = SECTION.exec(message.text);
    if (!section && !TRANSCRIPT.test(message.text)) return null;
    const { head, end } = beforeCopy(message.text, COPY);
    const delayed = section?.[1] === 'transient non-fatal' || /^Warning: could not send message/i.test(message.subject);
    const action = delayed ? 'delayed' : 'failed';
    const transcript = head.slice(Math.max(0, head.search(TRANSCRIPT)));
    let recipients: DsnRecipient[] = [];
    if (section) {
      const list = head.slice(head.indexOf(section[0]) + section[0].length).split(TRANSCRIPT)[0] ?? '';
      recipients = addressBlocks(list, /^<?([^\s<>@]+@[^\s<>]+?)>?[ \t]*$/, /^\s*-{3,}/).map((b) => {
        const stated = /\(reason: ([\s\S]*?)\)\s*(?:\n|$)/.exec(b.body)?.[1] ?? replyFor(transcript, b.address) ?? b.body;
        const reason = [...mailerFindings(transcript, b.address), stated].join('\n');
        return textRecipient(b.address, reason, { action, permanent: !delayed });
      });
    }
    if (recipients.length === 0) {
      for (const m of transcript.matchAll(/^([45])\d\d[ -](?:[45]\.\d{1,3}\.\d{1,3} )?<([^<>\s]+)>\.\.\. (.*)$/gm)) {
        const reason = [...mailerFindings(transcript, m[2] ?? ''), m[0]].join('\n');
        recipients.push(textRecipient(m[2], reason, { action: m[1] === '4' && delayed ? 'delayed' : 'failed' }));
      }
    }
    if (recipients.length === 0) return null;
    for (const recipient of recipients) {
      if (recipient.finalRecipient && replyAnsweredData(transcript, recipient.finalRecipient)) recipient.answeredData = true;
    }
    return { kind: 'dsn', recipients, original: findOriginal(message, end), format: 'sendmail' };
  },
};

/**
 * The index of the transcript line (trimmed) matching `reply` that names the address, else of the
 * last line matching it.
 */
function replyIndex(lines: readonly string[], address: string, reply: RegExp): number | undefined {
  const replies = lines.flatMap((l, i) => (reply.test(l) ? [i] : []));
  return replies.find((i) => lines[i]?.toLowerCase().includes(address.toLowerCase())) ?? replies.at(-1);
}

const transcriptLines = (transcript: string) => transcript.split('\n').map((l) => l.trim());

/** The reply in the transcript that names the address (`<<< 550 5.1.1 <a@x>... User unknown`). */
function replyFor(transcript: string, address: string): string | undefined {
  const lines = transcriptLines(transcript);
  const at = replyIndex(lines, address, /^(?:<<< )?[45]\d\d[ -]/);
  return at === undefined ? undefined : lines[at];
}

/**
 * Whether the transcript's remote reply about the address (the one naming it, else the last)
 * answered the message: the command sent before it was `>>> DATA` or the `>>> .` that ends the
 * message (`>>> DATA⏎<<< 550 Unknown user a@x`).
 */
function replyAnsweredData(transcript: string, address: string): boolean {
  const lines = transcriptLines(transcript);
  const at = replyIndex(lines, address, /^<<< [45]\d\d[ -]/);
  if (at === undefined) return false;
  for (let i = at - 1; i >= 0; i -= 1) {
    const line = lines[i] ?? '';
    if (line.startsWith('>>>')) return /^>>> (?:DATA|\.)$/i.test(line);
  }
  return false;
}

/**
 * What a local mailer wrote of the recipient into the transcript: `mail.local: unknown user: a`,
 * before sendmail's own summary of its exit code (`554 <a@x>... Service unavailable`, which says
 * nothing of why). The summary alone would leave a missing mailbox a class-only 5.0.0. Only lines
 * of the transcript itself (to its first blank line; the delivery-status fields of a report read
 * as text follow it) that name the recipient, by address or local part, so one recipient never
 * takes another's finding.
 */
function mailerFindings(transcript: string, address: string): string[] {
  const [heading = '', ...lines] = transcript.split('\n');
  if (!TRANSCRIPT.test(heading)) return [];
  const blank = lines.findIndex((l) => !l.trim());
  const own = blank < 0 ? lines : lines.slice(0, blank);
  return own.map((l) => l.trim()).filter((l) => !PROTOCOL_LINE.test(l) && namesRecipient(l, address));
}

/** True when a word of the line is the address or its local part (`unknown user: a`). */
function namesRecipient(line: string, address: string): boolean {
  const at = address.lastIndexOf('@');
  const wanted = [address, at > 0 ? address.slice(0, at) : address].map((a) => a.toLowerCase());
  return line
    .toLowerCase()
    .split(/[\s<>:;,()"'[\]]+/)
    .some((word) => wanted.includes(word.replace(/\.+$/, '')));
}
