/**
 * The path of an HTTP request target without its query: the origin form (`/c/<token>?…`) as it
 * comes, or the absolute form (`GET http://host/c/<token>`), which a server must accept too
 * (RFC 9112 §3.2.2); its host is ignored. For the services on plain node:http.
 */
export function requestPath(target: string | undefined): string {
  const url = target ?? '/';
  if (url.charCodeAt(0) === 0x2f) return url.split('?', 1)[0] as string;
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
