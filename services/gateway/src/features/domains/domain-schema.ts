import { normalizeSendingDomain } from '@mailroom/core';
import { z } from 'zod';
import { timestamp } from '../../schemas/common';

// A name is at most 253 characters in ASCII; IDNs may be longer before conversion.
const MAX_NAME_INPUT = 300;

/** `name` of `POST /domains`: stored lower-cased in ASCII form; IPs, single labels and public suffixes refused. */
export const domainNameField = z
  .string()
  .max(MAX_NAME_INPUT)
  .transform((value, ctx) => {
    const result = normalizeSendingDomain(value);
    if (!result.ok) {
      ctx.addIssue({ code: 'custom', message: result.reason });
      return z.NEVER;
    }
    return result.name;
  })
  .meta({ description: 'The domain to send from, such as `acme.example` (IDNs are stored in their ASCII form).', example: 'acme.example' });

const recordStatus = z.enum(['pending', 'verified', 'failed']).meta({
  description: '`pending` until first found; `verified` when found as given; `failed` when something else is published, or it was verified and has gone.',
});

const domainRecordSchema = z
  .object({
    record: z.enum(['verification', 'dkim', 'return_path_mx', 'return_path_spf', 'dmarc']).meta({
      description: 'What it is for: proof of ownership, the DKIM key, the MX and SPF of the return-path subdomain, and a recommended DMARC policy.',
    }),
    type: z.enum(['TXT', 'MX']),
    name: z.string().meta({ description: 'Fully qualified, without the trailing dot.' }),
    value: z.string().meta({ description: 'The TXT text, or the MX host.' }),
    priority: z.number().int().optional().meta({ description: 'MX preference.' }),
    splitValue: z.string().optional().meta({ description: 'TXT values over 255 bytes, as quoted strings of at most 255 bytes, for DNS providers that need them split.' }),
    selector: z.string().optional(),
    keyState: z.enum(['current', 'next', 'previous']).optional().meta({
      description: 'DKIM: the key mail is signed with, the one a rotation brings in (used once verified), or the one it retires (kept for mail in flight).',
    }),
    required: z.boolean().meta({ description: 'Needed for the domain to be verified.' }),
    status: recordStatus,
    found: z.array(z.string()).optional().meta({ description: 'What the last lookup found at the name.' }),
    reason: z
      .string()
      .optional()
      .meta({
        description:
          'Why the record is not usable as published, judged as a receiver would ("the key record\'s k= is ed25519, not rsa"; "SPF passes for 192.0.2.1, an address that is not ours"), or a note on a verified one (a subdomain covered by its organizational domain\'s DMARC policy).',
      }),
    checkedAt: timestamp.optional(),
  })
  .meta({ id: 'DomainRecord' });

export const domainSchema = z
  .object({
    object: z.literal('domain'),
    id: z.string().meta({ example: 'dom_01KAQ9A1B2C3D4E5F6G7H8J9K0' }),
    name: z.string(),
    status: z.enum(['pending', 'verified', 'failed']).meta({
      description: '`verified` once every required record is found and no other project verified the name first; `failed` when a verified domain loses a required record.',
    }),
    returnPathDomain: z.string().meta({ description: 'The VERP return path of its mail is here, so SPF aligns with the From domain.' }),
    dkimSelector: z.string().meta({ description: 'The selector mail is signed with.' }),
    claimedByAnotherProject: z.boolean().meta({ description: 'Every required record is published, but another project verified this name first.' }),
    records: z.array(domainRecordSchema),
    createdAt: timestamp,
    verifiedAt: timestamp.nullable(),
    lastCheckedAt: timestamp.nullable(),
    nextCheckAt: timestamp.meta({ description: 'When the schedule looks the records up next.' }),
  })
  .meta({ id: 'Domain' });
