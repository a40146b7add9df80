import type { ReceivedAttachmentInfo, ReceivedEmailDetail, ReceivedEmailRow } from '@mailroom/db';
import { z } from 'zod';
import { timestamp } from '../../schemas/common';

const mailAddress = z
  .object({
    address: z.string().meta({
      description: "The address as written; '' for a mailbox given by its name alone (`MAILER DAEMON <>`, a bare local user `foo`).",
      example: 'alice@example.com',
    }),
    name: z.string().nullable().meta({ description: 'The display name, decoded; null when the header gives none.', example: 'Alice' }),
  })
  .meta({ id: 'MailAddress' });

const attachmentSchema = z
  .object({
    id: z.string().meta({ example: 'att_01KAQ8E1F2G3H4J5K6M7N8P9Q0' }),
    filename: z.string().nullable(),
    contentType: z.string(),
    size: z.number().int().meta({ description: 'Decoded size in bytes.' }),
    contentId: z.string().nullable().meta({ description: 'Without angle brackets; set for inline parts such as images referenced by `cid:`.' }),
    disposition: z.string().nullable().meta({ description: '`attachment`, `inline`, or null when the part does not say.' }),
  })
  .meta({ id: 'ReceivedAttachment' });

const envelopeSchema = z
  .object({
    mailFrom: z.string().meta({ description: 'MAIL FROM; empty for the null sender (bounces).' }),
    rcptTo: z.array(z.string()).meta({ description: "This project's recipients of the SMTP transaction." }),
    remoteAddress: z.string().nullable().meta({ description: "The sending client's IP address." }),
    helo: z.string().nullable(),
  })
  .meta({ id: 'ReceivedEnvelope' });

// The verdicts as the inbound processing stores them (README "Parsing and authentication").
const authResult = z.string().meta({ description: '`pass`, `fail`, `softfail`, `neutral`, `none`, `temperror`, `permerror`, `policy` or `skipped`.', example: 'pass' });
const authenticationSchema = z
  .object({
    spf: z.object({ result: authResult, domain: z.string().nullable().meta({ description: 'The domain checked: the envelope sender’s, or the HELO name’s for the null sender.' }) }).nullable(),
    dkim: z
      .array(z.object({ result: authResult, domain: z.string().nullable(), selector: z.string().nullable(), aligned: z.boolean().meta({ description: 'Whether the signing domain aligns with the From domain (DMARC).' }) }))
      .nullable()
      .meta({ description: 'One verdict per DKIM signature; empty when the message is unsigned.' }),
    dmarc: z.object({ result: authResult, policy: z.string().nullable().meta({ description: 'The From domain’s published policy: `none`, `quarantine` or `reject`.' }), domain: z.string().nullable() }).nullable(),
    arc: z.object({ result: authResult }).nullable(),
  })
  .nullable()
  .meta({ id: 'ReceivedAuthentication', description: 'SPF, DKIM, DMARC and ARC verdicts; null until the message is processed.' });

const summaryShape = {
  object: z.literal('received_email'),
  id: z.string().meta({ example: 'inb_01KAQ8D1E2F3G4H5J6K7M8N9P0' }),
  routeId: z.string().nullable().meta({ description: 'The first route of this project the recipients matched; null for mail that came in as feedback.' }),
  from: z.union([mailAddress, z.null()]).meta({ description: 'The first From mailbox; null when the message has none.' }),
  to: z.array(mailAddress),
  cc: z.array(mailAddress),
  replyTo: z.array(mailAddress),
  subject: z.string().nullable(),
  messageId: z.string().nullable().meta({ description: 'As in the header, angle brackets included.' }),
  inReplyTo: z.string().nullable(),
  references: z.array(z.string()),
  date: timestamp.nullable().meta({ description: 'The Date header; null when missing or unreadable.' }),
  envelope: envelopeSchema,
  attachments: z.array(attachmentSchema),
  authentication: authenticationSchema,
  size: z.number().int().meta({ description: 'Size of the raw message in bytes.' }),
  createdAt: timestamp,
};

export const receivedEmailSummarySchema = z.object(summaryShape).meta({ id: 'ReceivedEmailSummary' });

export const receivedEmailSchema = z
  .object({
    ...summaryShape,
    text: z.string().nullable(),
    html: z.string().nullable(),
    textReply: z.string().nullable().meta({ description: 'The new text of a reply: the quoted history and the signature removed.' }),
    headers: z.array(z.object({ name: z.string(), value: z.string() })).meta({ description: 'Every header in message order, duplicates kept.' }),
  })
  .meta({ id: 'ReceivedEmail' });

type Address = z.infer<typeof mailAddress>;
type Summary = z.infer<typeof receivedEmailSummarySchema>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// The parsed columns are written by the inbound processing; read them defensively, so one odd
// row is shown with what it has rather than failing the whole list.
function toAddress(value: unknown): Address | null {
  if (!isRecord(value) || typeof value.address !== 'string') return null;
  return { address: value.address, name: typeof value.name === 'string' && value.name !== '' ? value.name : null };
}

const toAddresses = (value: unknown): Address[] =>
  Array.isArray(value) ? value.map(toAddress).filter((a): a is Address => a !== null) : [];

function toHeaders(value: unknown): { name: string; value: string }[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((h) => ({
    name: String(h.name ?? ''),
    value: typeof h.value === 'string' ? h.value : JSON.stringify(h.value ?? ''),
  }));
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const result = (value: Record<string, unknown>): string => text(value.result) ?? 'none';

/** The stored verdicts in the documented shape, each field there (null when the row lacks it). */
function toAuthentication(value: unknown): Summary['authentication'] {
  if (!isRecord(value)) return null;
  const { spf, dkim, dmarc, arc } = value;
  return {
    spf: isRecord(spf) ? { result: result(spf), domain: text(spf.domain) } : null,
    dkim: Array.isArray(dkim)
      ? dkim.filter(isRecord).map((d) => ({ result: result(d), domain: text(d.domain), selector: text(d.selector), aligned: d.aligned === true }))
      : null,
    dmarc: isRecord(dmarc) ? { result: result(dmarc), policy: text(dmarc.policy), domain: text(dmarc.domain) } : null,
    arc: isRecord(arc) ? { result: result(arc) } : null,
  };
}

const presentAttachment = (a: ReceivedAttachmentInfo): z.infer<typeof attachmentSchema> => ({
  id: a.id,
  filename: a.filename,
  contentType: a.contentType,
  size: a.size,
  contentId: a.contentId,
  disposition: a.disposition,
});

/**
 * A received email without bodies and headers, as lists show it. A message not processed yet
 * shows its envelope, size and dates; its parsed fields are null or empty until then.
 */
export function presentReceivedSummary(row: ReceivedEmailRow): Summary {
  return {
    object: 'received_email',
    id: row.id,
    routeId: row.routeIds[0] ?? null,
    from: toAddress(row.from),
    to: toAddresses(row.to),
    cc: toAddresses(row.cc),
    replyTo: toAddresses(row.replyTo),
    subject: row.subject,
    messageId: row.messageId,
    inReplyTo: row.inReplyTo,
    references: row.references ?? [],
    date: row.date?.toISOString() ?? null,
    envelope: { mailFrom: row.mailFrom, rcptTo: row.rcptTo, remoteAddress: row.remoteAddress, helo: row.helo },
    attachments: row.attachments.map(presentAttachment),
    authentication: toAuthentication(row.authentication),
    size: row.size,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The whole received email (DESIGN §7). */
export function presentReceivedEmail(row: ReceivedEmailDetail): z.infer<typeof receivedEmailSchema> {
  return { ...presentReceivedSummary(row), text: row.text, html: row.html, textReply: row.textReply, headers: toHeaders(row.headers) };
}
