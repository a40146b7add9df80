import type { FeedbackType } from '../report';
import { bareAddress } from '../text';

const FEEDBACK_TYPES = new Set<FeedbackType>(['abuse', 'fraud', 'virus', 'other', 'not-spam', 'auth-failure']);

/** A Feedback-Type value; unknown values (and `opt-out`, `miscategorized` of drafts) are `other`. */
export function feedbackType(value: string | undefined): FeedbackType {
  const type = (value ?? 'abuse').trim().toLowerCase() as FeedbackType;
  return FEEDBACK_TYPES.has(type) ? type : 'other';
}

/** An Original-Rcpt-To value without brackets; undefined for an empty or redacted-away value. */
export function rcptTo(value: string | undefined): string | undefined {
  const address = value ? bareAddress(value) : '';
  return address ? address : undefined;
}
