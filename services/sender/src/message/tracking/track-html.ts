import type { TrackingTokens } from '@mailroom/core';
import type { MessageRecipient, PersonalizeHtml } from '../build-skeleton';
import { type HrefSite, type HtmlScan, scanHtml } from './scan-html';

// What TrackingTokens signs at most (its MAX_URL_BYTES); a longer link is left as it is.
const MAX_TRACKED_URL_BYTES = 8192;

/** What to track in one email: its effective trackOpens and trackClicks. */
export interface TrackedEmail {
  id: string;
  html: string | null;
  trackOpens: boolean;
  trackClicks: boolean;
}

export interface HtmlTrackingOptions {
  tokens: TrackingTokens;
  /** TRACKING_BASE_URL, without a trailing slash. */
  baseUrl: string;
}

/** A link to rewrite: where its value is in the HTML, and the URL the redirect goes to. */
interface TrackedLink {
  site: HrefSite;
  url: string;
}

/**
 * Open and click tracking at send time (DESIGN §6). For an email with tracking on, the HTML is
 * scanned once (scan-html.ts) and each recipient's copy is the same string with only the
 * tracked `href` values replaced by `TRACKING_BASE_URL/c/<token>` and, with opens on, a 1×1
 * pixel `TRACKING_BASE_URL/o/<token>` inserted before `</body>` (or at the end): every other
 * character of the document is left as it was. Tokens carry the email, the recipient and the
 * link's URL, so the tracking service needs no database to answer.
 */
export class HtmlTracking {
  constructor(private readonly options: HtmlTrackingOptions) {}

  /** The per-recipient HTML of `email`, or null when it needs none (no HTML, or no tracking): the fast path. */
  forEmail(email: TrackedEmail): PersonalizeHtml | null {
    if (email.html === null || (!email.trackOpens && !email.trackClicks)) return null;
    const scan = scanHtml(email.html);
    const links = email.trackClicks ? trackedLinks(scan) : [];
    const pixelAt = email.trackOpens ? (scan.bodyEnd ?? scan.end) : null;
    if (links.length === 0 && pixelAt === null) return null;
    return (html: string, recipient: MessageRecipient) => this.personalize(html, email.id, recipient, links, pixelAt);
  }

  private personalize(html: string, emailId: string, recipient: MessageRecipient, links: readonly TrackedLink[], pixelAt: number | null): string {
    const { tokens, baseUrl } = this.options;
    const edits: { start: number; end: number; text: string }[] = links.map(({ site, url }) => {
      const href = `${baseUrl}/c/${tokens.sign({ kind: 'click', emailId, recipientId: recipient.id, url })}`;
      // An unquoted value gets quotes: the tracking URL then never depends on what follows it.
      const text = site.quote === null ? `"${escapeAttribute(href)}"` : escapeAttribute(href);
      return { start: site.start, end: site.end, text };
    });
    if (pixelAt !== null) {
      const src = `${baseUrl}/o/${tokens.sign({ kind: 'open', emailId, recipientId: recipient.id })}`;
      edits.push({ start: pixelAt, end: pixelAt, text: pixel(src) });
    }
    edits.sort((a, b) => a.start - b.start);
    let out = '';
    let from = 0;
    for (const edit of edits) {
      out += html.slice(from, edit.start) + edit.text;
      from = edit.end;
    }
    return out + html.slice(from);
  }
}

/**
 * The links to track, each with the URL its redirect goes to: http(s) links, absolute or
 * relative to the document's `<base href>` when that is an absolute http(s) URL (the link's
 * meaning as the author's browser would read it; relative links without such a base are left
 * alone). Not tracked: `data-mailroom-track="off"`, fragment-only, `mailto:`, `tel:` and every
 * other scheme, empty links, and links longer than a token can carry (8 KiB).
 */
export function trackedLinks(scan: HtmlScan): TrackedLink[] {
  const base = httpUrl(scan.baseHref, undefined);
  const links: TrackedLink[] = [];
  for (const site of scan.hrefs) {
    if (site.trackingOff) continue;
    const url = trackableUrl(site.value, base);
    if (url !== null) links.push({ site, url });
  }
  return links;
}

/** The URL a link goes to, serialised as a URL parser does (non-ASCII percent-encoded), or null when it is not tracked. */
export function trackableUrl(href: string, base: URL | null): string | null {
  const value = stripControlsAndSpaces(href);
  if (value === '' || value.startsWith('#')) return null;
  // Parsed against the base as a browser does: `http:page` is then relative to an http base.
  const url = httpUrl(value, base ?? undefined);
  if (url === null || Buffer.byteLength(url.href) > MAX_TRACKED_URL_BYTES) return null;
  return url.href;
}

/** What the URL parser strips itself, C0 controls and spaces at either end; a no-break space is part of the link. */
function stripControlsAndSpaces(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) <= 0x20) start++;
  while (end > start && value.charCodeAt(end - 1) <= 0x20) end--;
  return value.slice(start, end);
}

function httpUrl(value: string | null, base: URL | undefined): URL | null {
  if (value === null) return null;
  try {
    const url = new URL(value, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

function pixel(src: string): string {
  return `<img src="${escapeAttribute(src)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0">`;
}

/** Safe inside a single- or double-quoted attribute value. */
function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
