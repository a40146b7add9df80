// What a serialized URL (URL.href) is made of: printable ASCII, no space. Anything else in a
// Location header is a header break (CR/LF), a crash (Node refuses characters above U+00FF) or
// raw bytes a browser reads in its own way.
const SERIALIZED = /^[\x21-\x7e]+$/;
// Only web links are redirected to (the sender tracks no other scheme).
const WEB_SCHEME = /^https?:/i;

/**
 * The Location of a click's redirect: the link a token carries, as a URL parser reads it
 * (DESIGN §6). The sender signs links already serialized, so this is the link itself; a token
 * signed otherwise (an older sender, another tool holding the key) is serialized here, so CR/LF,
 * U+2028 or non-ASCII never reach the header. Null when it is no http(s) URL at all.
 */
export function redirectLocation(link: string): string | null {
  if (SERIALIZED.test(link) && WEB_SCHEME.test(link)) return link;
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return SERIALIZED.test(url.href) ? url.href : null;
}
