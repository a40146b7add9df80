import { decodeBody, parseHeaderBlock, walk } from '../mime';
import { findOriginal, findVerp } from '../report-message';
import { feedbackType, rcptTo } from './arf-fields';
import type { ReportFormat } from './format';

// RFC 5965 Abuse Reporting Format: multipart/report; report-type=feedback-report with a
// human-readable part, a message/feedback-report part (Feedback-Type, User-Agent, Version,
// Original-Mail-From, Original-Rcpt-To, Arrival-Date, Source-IP, …) and the original as
// message/rfc822 or text/rfc822-headers (often redacted). The provider is named from the
// User-Agent or the sender, for the record; the reading is the same for all of them.
const PROVIDERS: { format: string; pattern: RegExp }[] = [
  // Yahoo's Complaint Feedback Loop: User-Agent "Yahoo!-Mail-Feedback/2.0", from feedback@arf.mail.yahoo.com.
  { format: 'arf-yahoo', pattern: /yahoo/i },
  // AOL (now Yahoo/Verizon Media) SComp: User-Agent "AOL SComp", from scomp@aol.net.
  { format: 'arf-aol', pattern: /\baol\b|scomp|verizon/i },
  // Mail.ru: User-Agent "Mail.Ru FBL", from fbl@corp.mail.ru.
  { format: 'arf-mailru', pattern: /mail\.ru/i },
  // Comcast, Fastmail and others through Validity (formerly Return Path): "ReturnPathFBL/2.0".
  { format: 'arf-validity', pattern: /returnpath|validity|comcast/i },
];

export const arfStandard: ReportFormat = {
  name: 'arf',
  read(message) {
    const part = walk(message.root, { intoMessages: false }).find((e) => e.type === 'message/feedback-report');
    if (!part) return null;
    const fields = parseHeaderBlock(decodeBody(part, 'text').trim());
    const get = (name: string) => fields.find((f) => f.name === name)?.value;
    const userAgent = get('user-agent');
    const origin = `${userAgent ?? ''} ${message.from}`;
    const format = PROVIDERS.find((p) => p.pattern.test(origin))?.format ?? 'arf';
    // Original-Rcpt-To may appear several times (RFC 5965 §3.2), e.g. a redacted one beside a
    // plain one: all of them are kept, so the recipient can be found among any.
    const rcptTos = fields.filter((f) => f.name === 'original-rcpt-to').map((f) => rcptTo(f.value));
    const originalRcptTo = rcptTos.filter(Boolean).join(', ') || rcptTo(get('removal-recipient'));
    const originalMailFrom = rcptTo(get('original-mail-from'));
    const original = findOriginal(message);
    // A redacted original can lose its Return-Path; the envelope sender field often keeps the VERP.
    const verp = originalMailFrom ? findVerp(originalMailFrom) : undefined;
    if (!original.returnPath && verp) original.returnPath = verp;
    const sourceIp = get('source-ip');
    const arrivalDate = get('arrival-date') ?? get('received-date');
    return {
      kind: 'arf',
      feedbackType: feedbackType(get('feedback-type')),
      ...(userAgent ? { userAgent } : {}),
      original,
      ...(originalRcptTo ? { originalRcptTo } : {}),
      ...(originalMailFrom ? { originalMailFrom } : {}),
      ...(sourceIp ? { sourceIp } : {}),
      ...(arrivalDate ? { arrivalDate } : {}),
      format,
    };
  },
};
