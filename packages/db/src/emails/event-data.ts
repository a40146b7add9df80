// The `data` of events about sent mail (DESIGN §5). The events themselves are written to the
// outbox by recordOutcomes, in the transaction of the change they report.
import type { EmailEventData, ReportLinkData } from '@mailroom/core';

/** The fields of an email every event about it carries. */
export interface EmailEventSubject {
  id: string;
  projectId: string;
  from: string;
  to: string[];
  subject: string;
  tags: unknown;
}

export function eventData(email: EmailEventSubject, recipient: string, extra: Partial<EmailEventData> = {}): EmailEventData {
  return {
    email_id: email.id,
    from: email.from,
    to: email.to,
    subject: email.subject,
    tags: (email.tags ?? []) as EmailEventData['tags'],
    recipient,
    ...extra,
  };
}

/**
 * The `report` of an outcome that came from a received report (DSN, ARF): its `inb_…` id and
 * the URL of its raw bytes, `<PUBLIC_API_URL>/emails/received/<id>/raw`, readable by the project.
 */
export function reportLink(receivedEmailId: string, publicApiUrl: string): ReportLinkData {
  return { received_email_id: receivedEmailId, raw_url: `${publicApiUrl.replace(/\/+$/, '')}/emails/received/${encodeURIComponent(receivedEmailId)}/raw` };
}
