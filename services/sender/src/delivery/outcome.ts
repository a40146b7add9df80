/**
 * One SMTP reply, split into its parts. For outcomes Mailroom decides itself (a domain that
 * does not exist, a null MX) `code` is null and `enhancedCode` says what happened.
 */
export interface SmtpReply {
  /** Basic reply code (RFC 5321 §4.2), e.g. 550; null when no server answered. */
  code: number | null;
  /** Enhanced status code (RFC 3463), e.g. '5.1.1'; null when the reply carries none. */
  enhancedCode: string | null;
  /** The reply text without the codes; lines of a multi-line reply joined by a space. */
  message: string;
}

/** How bad a bounce is: no such address (hard), refused by policy, or a problem that may pass (soft). */
export type BounceType = 'hard' | 'soft' | 'policy';

/** What happened to one recipient in one delivery attempt. */
export type DeliveryOutcome =
  /** The next hop answered 250 after DATA. `host` is the MX or smarthost name. */
  | { kind: 'delivered'; smtp: SmtpReply; host: string }
  /** Try again later: a 4xx reply, or a connection, DNS or timeout failure (`smtp` null then). */
  | { kind: 'deferred'; smtp: SmtpReply | null; error: string; retryAfterSeconds: number | null }
  /** Permanent failure. `suppress` is true only when the address itself does not exist (5.1.x). */
  | {
      kind: 'bounced';
      smtp: SmtpReply;
      bounceType: BounceType;
      suppress: boolean;
      /** The enhanced status it was judged by: the reply's, or read from its text when it had none. */
      code?: string | null;
    };
