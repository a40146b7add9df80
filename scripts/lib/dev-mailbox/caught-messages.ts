import { randomUUID } from 'node:crypto';
import { type AddressObject, simpleParser } from 'mailparser';

/** One message the dev mailbox caught, parsed for the viewer. */
export interface CaughtMessage {
  id: string;
  receivedAt: string;
  /** The SMTP envelope: who the sender asked to deliver to, whatever the headers say. */
  envelope: { mailFrom: string; rcptTo: string[] };
  from: string;
  to: string;
  subject: string;
  headers: { name: string; value: string }[];
  text: string | null;
  html: string | null;
  raw: Buffer;
}

const addresses = (value: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(value) ? value : value ? [value] : []).map((a) => a.text).join(', ');

/** The newest messages, newest first, kept in memory up to `limit`. */
export class CaughtMessages {
  private readonly messages: CaughtMessage[] = [];

  constructor(private readonly limit: number) {}

  async add(raw: Buffer, envelope: CaughtMessage['envelope']): Promise<CaughtMessage> {
    const parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
    const message: CaughtMessage = {
      id: randomUUID(),
      receivedAt: new Date().toISOString(),
      envelope,
      from: addresses(parsed.from),
      to: addresses(parsed.to),
      subject: parsed.subject ?? '',
      headers: parsed.headerLines.map((h) => ({ name: h.key, value: h.line.slice(h.line.indexOf(':') + 1).trim() })),
      text: parsed.text ?? null,
      html: typeof parsed.html === 'string' ? parsed.html : null,
      raw,
    };
    this.messages.unshift(message);
    this.messages.splice(this.limit);
    return message;
  }

  list(): readonly CaughtMessage[] {
    return this.messages;
  }

  get(id: string): CaughtMessage | undefined {
    return this.messages.find((m) => m.id === id);
  }
}
