import { hasAutomaticMark, hasVacationSubject } from './auto-reply';
import { BOUNCE_WORDS, looksLikeBounce } from './formats/generic';
import { header, isAttachedMessage, walk } from './mime';
import type { ReportMessage } from './report-message';
import { findBasicCode } from './status-codes';

// A person's message sent to the return path, such as a forward with the original attached as
// an .eml file ("it shouldn't be considered as bounce"): not a report, so it bounces nothing.
// Told apart only when every sign points one way: an attached message the sender attached by
// hand (a part marked `attachment` or given a file name), no sign of a bounce (formats/generic.ts
// `looksLikeBounce`, and no bounce wording or reply code in the text either), and no mark of an
// automatic message. Anything less certain stays an unreadable report (a soft bounce, code null).

/** True when the message is a person's, with a message attached by hand, and nothing of a report. */
export function isPersonalMessage(message: ReportMessage): boolean {
  if (!hasHandAttachedMessage(message)) return false;
  if (looksLikeBounce(message) || hasAutomaticMark(message) || hasVacationSubject(message.subject)) return false;
  if (BOUNCE_WORDS.test(message.text) || (findBasicCode(message.text) ?? 0) >= 400) return false;
  return !message.root.type.startsWith('multipart/report');
}

function hasHandAttachedMessage(message: ReportMessage): boolean {
  return walk(message.root, { intoMessages: false }).some(
    (e) =>
      e !== message.root &&
      isAttachedMessage(e.type) &&
      (/^\s*attachment\b/i.test(header(e, 'content-disposition') ?? '') || e.params.name !== undefined || /filename/i.test(header(e, 'content-disposition') ?? '')),
  );
}
