/**
 * Custom headers whose values have a syntax of their own, not free text: message ids
 * (In-Reply-To, References: RFC 5322 §3.6.4) and the list headers' URLs and ids (RFC 2369, 2919,
 * 8058). The gateway holds them to ASCII (outside SMTPUTF8 they have no other form); the sender
 * never makes them encoded-words (one there is no longer an id or a URL).
 */
export function isStructuredHeader(name: string): boolean {
  return /^(?:in-reply-to|references|list-[a-z-]+)$/i.test(name);
}
