import { createServer, type Server, type ServerResponse } from 'node:http';
import type { CaughtMessage, CaughtMessages } from './caught-messages';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

// The viewer's own pages: no scripts at all; the message HTML lives in a sandboxed frame.
const PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; base-uri 'none'; form-action 'none'";
// A message's HTML: a unique origin with no scripts, forms or plugins, and nothing fetched
// (so no tracking pixel calls home); inline styles and data: images still render.
const MESSAGE_POLICY = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:70rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e4e4e4;vertical-align:top}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.75rem}iframe{width:100%;height:32rem;border:1px solid #ddd}a{color:#0b57d0}`;

function page(title: string, body: string, refreshSeconds?: number): string {
  const refresh = refreshSeconds ? `<meta http-equiv="refresh" content="${refreshSeconds}">` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">${refresh}<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, policy = PAGE_POLICY): void {
  res.writeHead(status, { 'content-type': type, 'content-security-policy': policy, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
  res.end(body);
}

const summary = (m: CaughtMessage) => ({ id: m.id, receivedAt: m.receivedAt, envelope: m.envelope, from: m.from, to: m.to, subject: m.subject });

function listPage(messages: readonly CaughtMessage[]): string {
  const rows = messages
    .map(
      (m) =>
        `<tr><td>${escapeHtml(m.receivedAt.replace('T', ' ').slice(0, 19))}</td><td>${escapeHtml(m.from)}</td><td>${escapeHtml(m.envelope.rcptTo.join(', '))}</td><td><a href="/messages/${m.id}">${escapeHtml(m.subject || '(no subject)')}</a></td></tr>`,
    )
    .join('');
  const table = rows
    ? `<table><tr><th>received (UTC)</th><th>from</th><th>to (envelope)</th><th>subject</th></tr>${rows}</table>`
    : '<p>Nothing caught yet. Messages sent to this mailbox appear here (the page refreshes itself).</p>';
  return page('Dev mailbox', `<h1>Dev mailbox</h1><p>${messages.length} message(s), newest first.</p>${table}`, 5);
}

function messagePage(m: CaughtMessage): string {
  const headers = m.headers.map((h) => `<tr><th>${escapeHtml(h.name)}</th><td>${escapeHtml(h.value)}</td></tr>`).join('');
  const html = m.html === null ? '' : `<h2>HTML</h2><iframe sandbox src="/messages/${m.id}/html" title="HTML body"></iframe>`;
  const text = m.text === null ? '' : `<h2>Text</h2><pre>${escapeHtml(m.text)}</pre>`;
  return page(
    m.subject || '(no subject)',
    `<p><a href="/">← all messages</a> · <a href="/messages/${m.id}/raw">raw</a></p><h1>${escapeHtml(m.subject || '(no subject)')}</h1>
<p>Envelope: from ${escapeHtml(m.envelope.mailFrom || '<>')} to ${escapeHtml(m.envelope.rcptTo.join(', '))}</p>${html}${text}<h2>Headers</h2><table>${headers}</table>`,
  );
}

/**
 * The dev mailbox's web viewer: `/` lists what was caught, `/messages/{id}` shows one message,
 * `/messages.json` and `/messages/{id}.json` give the same as JSON (for scripts and tests).
 */
export function createViewer(messages: CaughtMessages): Server {
  return createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain; charset=utf-8', 'Only GET.');
    const path = new URL(req.url ?? '/', 'http://viewer').pathname;
    if (path === '/') return send(res, 200, 'text/html; charset=utf-8', listPage(messages.list()));
    if (path === '/messages.json') return send(res, 200, 'application/json', JSON.stringify(messages.list().map(summary)));
    const match = /^\/messages\/([\w-]+?)(\.json|\/html|\/raw)?$/.exec(path);
    const message = match ? messages.get(match[1] as string) : undefined;
    if (!message) return send(res, 404, 'text/plain; charset=utf-8', 'No such message.');
    switch (match?.[2]) {
      case '.json': {
        const { raw: _raw, ...rest } = message;
        return send(res, 200, 'application/json', JSON.stringify(rest));
      }
      case '/html':
        return send(res, 200, 'text/html; charset=utf-8', message.html ?? '', MESSAGE_POLICY);
      case '/raw':
        return send(res, 200, 'text/plain; charset=utf-8', message.raw);
      default:
        return send(res, 200, 'text/html; charset=utf-8', messagePage(message));
    }
  });
}
