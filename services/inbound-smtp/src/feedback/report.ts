/** What a delivery status notification says about one recipient. */
export interface DsnRecipient {
  action: DsnAction;
  /** Enhanced status code (RFC 3463) such as `5.1.1`, or null when none could be read or derived. */
  status: string | null;
  /** What the remote server said (an SMTP reply or the report's explanation), or null. */
  diagnostic: string | null;
  remoteMta?: string;
  /** The address the report names; the caller trusts the VERP address over this. */
  finalRecipient?: string;
  originalRecipient?: string;
  /** The quoted reply answered DATA or the message's end (the recipient was accepted at RCPT), as the report's text says. */
  answeredData?: boolean;
}

export type DsnAction = 'failed' | 'delayed' | 'delivered' | 'relayed' | 'expanded';

/** Identifiers of the message a report is about, as far as they survive in it. */
export interface OriginalRef {
  /** Message-ID with its angle brackets. */
  messageId?: string;
  /** A VERP return path (`bounces+rcpt_…-…@…`) found in the original's headers; not yet verified. */
  returnPath?: string;
  to?: string;
}

/** Feedback-Type values of RFC 5965 and its updates (6591 auth-failure, 6650 not-spam). */
export type FeedbackType = 'abuse' | 'fraud' | 'virus' | 'other' | 'not-spam' | 'auth-failure';

export type Report =
  | {
      kind: 'dsn';
      recipients: DsnRecipient[];
      original: OriginalRef;
      /** The family that read it: `rfc3464`, `qmail`, `exim`, … (see formats/index.ts). */
      format: string;
      /** Reporting-MTA of an RFC 3464 report, when given. */
      reportingMta?: string;
    }
  | {
      kind: 'arf';
      feedbackType: FeedbackType;
      userAgent?: string;
      original: OriginalRef;
      /** Original-Rcpt-To without brackets; several (RFC 5965 §3.2 allows it) joined with `, `. */
      originalRcptTo?: string;
      /** Original-Mail-From: the envelope sender, our VERP return path when it was not redacted. */
      originalMailFrom?: string;
      sourceIp?: string;
      arrivalDate?: string;
      /** The provider style: `arf`, `arf-yahoo`, `arf-aol`, `jmrp`, `text-complaint`, … */
      format: string;
    }
  /** An automatic reply (out of office, vacation) sent to the return path: not a report at all. */
  | { kind: 'auto-reply'; text: string }
  /** A person's message to the return path (a forward with the original attached): not a report at all. */
  | { kind: 'personal'; text: string }
  /** A report nobody can read; the caller makes it a soft bounce with code null. */
  | { kind: 'unknown'; text: string };
