import { isUtf8 } from 'node:buffer';
import type { MailroomError } from '@mailroom/core';
import type { Request } from 'express';

/**
 * The value of a header that must be sent at most once, or undefined when absent. A repeated
 * one is refused with `refuse()`: Node keeps only the first `Authorization` and joins other
 * repeats with ", ", so a proxy reading the last copy and the gateway reading the first would
 * disagree about who is calling, or which key a send is retried under.
 */
export function singleHeader(req: Request, name: string, refuse: () => MailroomError): string | undefined {
  const lower = name.toLowerCase();
  let count = 0;
  // rawHeaders alternates names and values, as received.
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === lower) count++;
  }
  if (count > 1) throw refuse();
  return req.get(name);
}

/**
 * A header's value as the text the client meant. Node reads header bytes as Latin-1, so UTF-8
 * (what curl and most clients send for non-ASCII) arrives as two to four characters per
 * character; a value that is valid UTF-8 is decoded as such, anything else stays Latin-1.
 */
export function headerText(value: string): string {
  // Pure ASCII, the usual case, reads the same either way.
  if (!/[\u0080-\uffff]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : value;
}
