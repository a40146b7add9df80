/**
 * The tracking baseline, run as its own process: a bare node:http server answering the same
 * bytes as the tracking service (the 43-byte GIF with its no-cache headers, or a 302 to the
 * link) without reading a token or recording anything. Env: PORT, LOCATION.
 */
import { createServer } from 'node:http';

const GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
const NO_CACHE = { 'cache-control': 'no-store, no-cache, must-revalidate, max-age=0, private', pragma: 'no-cache', expires: '0' };
const location = process.env.LOCATION ?? 'https://example.com/';

const server = createServer((req, res) => {
  if (req.url?.startsWith('/o/')) {
    res.writeHead(200, { 'content-type': 'image/gif', 'content-length': String(GIF.length), ...NO_CACHE });
    res.end(GIF);
  } else {
    res.writeHead(302, { location, 'content-length': '0', ...NO_CACHE });
    res.end();
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1');
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
