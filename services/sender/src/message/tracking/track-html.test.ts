import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deriveKey, newId, TrackingTokens } from '@mailroom/core';
import { scanHtml } from './scan-html';
import { HtmlTracking, type TrackedEmail } from './track-html';

const BASE = 'https://t.mailroom.test';
const tokens = new TrackingTokens(deriveKey('a master secret of sufficient length!', 'tracking'));
const tracking = new HtmlTracking({ tokens, baseUrl: BASE });
const CORPUS = join(__dirname, '../../../test/html-corpus');

const email = (html: string, overrides: Partial<TrackedEmail> = {}): TrackedEmail => ({ id: newId('email'), html, trackOpens: true, trackClicks: true, ...overrides });
const recipient = () => ({ id: newId('recipient'), address: 'ada@example.test' });

/** Tracks `html` for one recipient; returns the output, the URLs its rewritten links redirect to, and the input rebuilt from the output. */
function track(html: string, overrides: Partial<TrackedEmail> = {}) {
  const personalize = tracking.forEmail(email(html, overrides));
  const out = personalize ? personalize(html, recipient()) : html;
  const before = scanHtml(html).hrefs;
  const after = scanHtml(out).hrefs;
  expect(after).toHaveLength(before.length);
  const redirects: string[] = [];
  let rebuilt = '';
  let from = 0;
  after.forEach((site, i) => {
    const original = before[i]!;
    if (site.value.startsWith(`${BASE}/c/`)) {
      const target = tokens.verify(site.value.slice(BASE.length + 3));
      expect(target?.kind).toBe('click');
      if (target?.kind === 'click') redirects.push(target.url);
    } else {
      expect(site.value).toBe(original.value);
    }
    // Unquoted values were given quotes: they belong to the href value too.
    const start = original.quote === null && site.quote !== null ? site.start - 1 : site.start;
    const end = original.quote === null && site.quote !== null ? site.end + 1 : site.end;
    rebuilt += out.slice(from, start) + html.slice(original.start, original.end);
    from = end;
  });
  rebuilt += out.slice(from);
  const pixels = [...rebuilt.matchAll(/<img src="https:\/\/t\.mailroom\.test\/o\/([A-Za-z0-9_-]+)" width="1" height="1" alt="" style="[^"]*">/g)];
  for (const [whole, token] of pixels) {
    expect(tokens.verify(token!)?.kind).toBe('open');
    rebuilt = rebuilt.replace(whole, '');
  }
  return { out, redirects, rebuilt, pixels: pixels.length };
}

describe('open and click tracking of HTML', () => {
  test('when links carry query strings, fragments, non-ASCII, entities, odd case and great length, then the redirect is the URL a browser would follow', () => {
    const long = `https://long.example/p?${'q=x&'.repeat(1500)}end=1`;
    const cases: [string, string][] = [
      ['https://example.com/a?b=1&amp;c=2#frag', 'https://example.com/a?b=1&c=2#frag'],
      ['https://example.com/a?b=1&c=2', 'https://example.com/a?b=1&c=2'],
      ['HTTPS://Example.COM/Path?Q=V', 'https://example.com/Path?Q=V'],
      ['hTtP://example.com', 'http://example.com/'],
      ['https://example.org/naïve/straße?q=日本語#über', 'https://example.org/na%C3%AFve/stra%C3%9Fe?q=%E6%97%A5%E6%9C%AC%E8%AA%9E#%C3%BCber'],
      ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
      ['https://example.com/a%20b/%E2%82%AC?x=%2F&amp;y=%25', 'https://example.com/a%20b/%E2%82%AC?x=%2F&y=%25'],
      ['https&#58;//example.com/x?a=1&#38;b=2', 'https://example.com/x?a=1&b=2'],
      ['https://example.com/?q=&quot;hi&quot;', 'https://example.com/?q=%22hi%22'],
      ['  https://example.com/trim  ', 'https://example.com/trim'],
      // The URL parser strips C0 controls and spaces only: a no-break space stays part of the link.
      ['https://example.com/a&nbsp;', 'https://example.com/a%C2%A0'],
      ['\thttps://example.com/?q=a\u00a0b\u3000 ', 'https://example.com/?q=a%C2%A0b%E3%80%80'],
      // In an attribute, a reference without ";" before "=" is text (HTML's legacy rule), as browsers read it.
      ['https://example.com/?a=1&copy=2', 'https://example.com/?a=1&copy=2'],
      ['https://example.com/?a=1&copy;2', 'https://example.com/?a=1%C2%A92'],
      ['https://user:pw@example.com:8443/x', 'https://user:pw@example.com:8443/x'],
      [long, long],
    ];
    for (const [href, expected] of cases) {
      const { redirects, rebuilt } = track(`<p><a href="${href}">x</a></p>`, { trackOpens: false });
      expect([href, redirects]).toEqual([href, [expected]]);
      expect(rebuilt).toBe(`<p><a href="${href}">x</a></p>`);
    }
  });

  test('when a link is not an http(s) URL, is fragment-only, opted out, or too long for a token, then it is left as it is', () => {
    const untouched = [
      'mailto:ada@example.com',
      'tel:+15555550100',
      'sms:+15555550100',
      'javascript:alert(1)',
      'ftp://files.example/f.zip',
      '#top',
      '',
      'relative/page',
      '//cdn.example/no-base',
      '&nbsp;https://example.com/not-absolute',
      `https://huge.example/${'x'.repeat(9000)}`,
    ];
    for (const href of untouched) expect(track(`<a href="${href}">x</a>`, { trackOpens: false }).redirects).toEqual([]);
    const optOut = '<a data-mailroom-track="off" href="https://example.com/u">u</a><a href="https://example.com/u" DATA-MAILROOM-TRACK="OFF">v</a>';
    expect(track(optOut, { trackOpens: false }).out).toBe(optOut);
  });

  test('when a document has a <base href>, then relative links resolve against it and absolute ones stay absolute', () => {
    const html =
      '<base href="https://shop.example/store/"><a href="p/1">a</a><a href="/sale">b</a><a href="https://other.example/">c</a><a href="mailto:x@y">d</a><a href="https:p/2">e</a><a href="http:p/3">f</a>';
    // `https:p/2` is relative to an https base (WHATWG URL's special-relative state); `http:p/3` is not.
    expect(track(html, { trackOpens: false }).redirects).toEqual([
      'https://shop.example/store/p/1',
      'https://shop.example/sale',
      'https://other.example/',
      'https://shop.example/store/p/2',
      'http://p/3',
    ]);
  });

  test('when a <base> sits in an <svg>, a <math> or a <template>, then it is not the document\'s: relative links stay as they are, the first HTML one counts', () => {
    for (const html of [
      '<svg><base href="https://evil.example/"></base></svg><p><a href="rel.html">r</a></p>',
      '<math><base href="https://evil.example/"></math><a href="rel.html">r</a>',
      '<template><base href="https://tpl.example/"></template><a href="rel.html">r</a>',
    ]) {
      const { redirects, out } = track(html, { trackOpens: false });
      expect([html, redirects, out]).toEqual([html, [], html]);
    }
    // After the SVG, the first HTML base is the document's.
    expect(track('<svg><base href="https://evil.example/"/></svg><base href="https://shop.example/"><a href="p">a</a>', { trackOpens: false }).redirects).toEqual(['https://shop.example/p']);
  });

  test('when a </body> sits inside a <template>, then the pixel goes at the </body> a browser honours, or before a template never closed', () => {
    const html = '<html><body><template><p>x</p></body></template><p>real content</p></body></html>';
    const { out, pixels } = track(html, { trackClicks: false });
    expect(pixels).toBe(1);
    expect(out.indexOf('<img')).toBe(html.lastIndexOf('</body>'));
    const unclosed = '<html><body><p>real content</p><template><p>x</p></body></html>';
    const open = track(unclosed, { trackClicks: false });
    expect(open.pixels).toBe(1);
    expect(open.out.indexOf('<img')).toBe(unclosed.indexOf('<template>'));
    // A template inside SVG is SVG's, not HTML's: the </body> after it counts.
    const svg = '<body><svg><template></template></svg><p>x</p></body>';
    expect(track(svg, { trackClicks: false }).out.indexOf('<img')).toBe(svg.indexOf('</body>'));
  });

  test('when only opens or only clicks are tracked, then only the pixel or only the links change; neither on: no personalisation', () => {
    const html = '<html><body><a href="https://example.com/">x</a></body></html>';
    const opens = track(html, { trackClicks: false });
    expect([opens.redirects, opens.pixels]).toEqual([[], 1]);
    expect(opens.out.indexOf('<img')).toBe(html.indexOf('</body>'));
    const clicks = track(html, { trackOpens: false });
    expect([clicks.redirects, clicks.pixels]).toEqual([['https://example.com/'], 0]);
    expect(tracking.forEmail(email(html, { trackOpens: false, trackClicks: false }))).toBeNull();
    expect(tracking.forEmail(email('', { html: null }))).toBeNull();
  });

  test('when a document has no </body>, then the pixel goes at its end', () => {
    const { out, pixels } = track('<p>Hi</p>', { trackClicks: false });
    expect(pixels).toBe(1);
    expect(out.startsWith('<p>Hi</p><img src=')).toBe(true);
  });

  test('when a document without </body> ends inside a comment, a tag or a <style>, then the pixel goes before that unfinished end, where it is an image', () => {
    for (const tail of ['<!-- footer', '<style>p { color: red }', '<a href="https://example.com/"', '</', '<script>x<!--', '<title>t']) {
      const html = `<p>Hi</p>\n${tail}`;
      const { out, pixels, rebuilt } = track(html, { trackClicks: false });
      expect([tail, pixels, rebuilt]).toEqual([tail, 1, html]);
      const at = out.indexOf('<img');
      const pixelEnd = out.indexOf('>', at) + 1;
      expect([tail, `\n${tail}`]).toContain(out.slice(pixelEnd));
      // The tokenizer reads markup (not a comment, a tag or text) where the pixel starts and again where it ends.
      expect([tail, scanHtml(out.slice(0, at)).end, scanHtml(out.slice(0, pixelEnd)).end]).toEqual([tail, at, pixelEnd]);
    }
  });

  test('when an HTML element ends an inline <svg> or <math>, then a <style> after it is text again and its "links" are left alone', () => {
    const html =
      '<svg width="1" height="1"><rect/><p>logo</p><style>/* <a href="https://in-style.example/">x</a> */</style>' +
      '<math><mi>x</mi><font color="red"><title><a href="https://in-title.example/">t</a></title></font></math>' +
      '<svg><font><style><a href="https://svg-style-link.example/">svg</a></style></font></svg>';
    const { out, redirects } = track(html, { trackOpens: false });
    // <font> without color, face or size stays SVG, where <style> holds markup: that <a> is an SVG link.
    expect(redirects).toEqual(['https://svg-style-link.example/']);
    expect(out).toContain('<a href="https://in-style.example/">');
    expect(out).toContain('<a href="https://in-title.example/">');
  });

  test('when an integration point belongs to the other namespace, then it is none: SVG\'s <mi> keeps <style> markup, a <title> in SVG\'s <desc> is HTML text', () => {
    const html =
      '<svg><mi><style><a href="https://svg-mi-style.example/">a</a></style></mi></svg>' +
      '<svg><desc><title><a href="https://title-text.example/">t</a></title></desc></svg>' +
      '<math><annotation-xml><style><a href="https://math-xml-style.example/">m</a></style></annotation-xml></math>' +
      '<math><annotation-xml encoding="text/html"><style><a href="https://html-style.example/">h</a></style></annotation-xml></math>';
    const { out, redirects } = track(html, { trackOpens: false });
    // As Chromium reads them: the first and third <a> are links (foreign <style> holds markup); the others are text.
    expect(redirects).toEqual(['https://svg-mi-style.example/', 'https://math-xml-style.example/']);
    expect(out).toContain('<a href="https://title-text.example/">');
    expect(out).toContain('<a href="https://html-style.example/">');
  });

  test('when foreign elements are nested a hundred thousand deep and then met by as many unrelated end tags, then the scan still ends (linear) and finds the link after them', () => {
    const html = `${'<svg>'.repeat(100_000)}${'</x>'.repeat(100_000)}${'</svg>'.repeat(100_000)}<a href="https://after.example/">a</a>`;
    const scan = scanHtml(html);
    expect(scan.hrefs.map((h) => h.value)).toEqual(['https://after.example/']);
    // A bound on complexity, not a speed target: linear, this takes well under a second; a walk of
    // the open elements for each end tag (quadratic) took over 30 s.
  }, 10_000);

  test('when two recipients get one email, then their tokens differ and name each of them', () => {
    const html = '<a href="https://example.com/">x</a>';
    const e = email(html);
    const personalize = tracking.forEmail(e)!;
    const [a, b] = [recipient(), recipient()];
    const [outA, outB] = [personalize(html, a), personalize(html, b)];
    expect(outA).not.toBe(outB);
    const tokenOf = (out: string) => tokens.verify(scanHtml(out).hrefs[0]!.value.slice(BASE.length + 3));
    expect(tokenOf(outA)).toEqual({ kind: 'click', emailId: e.id, recipientId: a.id, url: 'https://example.com/' });
    expect(tokenOf(outB)).toEqual({ kind: 'click', emailId: e.id, recipientId: b.id, url: 'https://example.com/' });
  });

  const EXPECTED: Record<string, string[]> = {
    '01-newsletter-tables-mso.html': [
      'https://acme.example/blog/launch?utm_source=newsletter&utm_medium=email&utm_campaign=w42',
      'https://acme.example/cta',
      'https://acme.example/preferences',
    ],
    '02-base-href-uppercase-crlf.html': [
      'https://shop.example/store/products/42?ref=mail',
      'https://shop.example/sale',
      'https://cdn.example/pdf/catalog.pdf',
      'https://www.example.com/Path/Caf%C3%A9?Q=1#Frag',
      'https://shop.example/map',
    ],
    '03-transactional-no-body.html': [
      'https://billing.example/receipts/1042?sig=a%2Fb%2Bc%3D&v=2',
      'https://example.org/na%C3%AFve/stra%C3%9Fe?q=%E6%97%A5%E6%9C%AC%E8%AA%9E&x=a%20b',
      'https://spaces.example/trim',
      'https://svg-link.example/',
    ],
    '04-marketing-entities-outlook.html': [
      'https://app.example/open?deep=1&src=mail',
      'https://encoded-colon.example/x?a=1&b=2&copy=3',
      "https://quotes.example/?q=%22quoted%22&r=it%27s",
      'https://example.com/a%20b/%E2%82%AC?x=%2F&y=%25',
      'http://plain-http.example:8080/p?x=1',
    ],
    '05-long-url-fragment.html': [
      `https://long.example/track?${Array.from({ length: 100 }, (_, i) => `p${i}=${'v'.repeat(40)}`).join('&')}`,
      'https://docs.example/guide?section=a&lang=fr#install-step-2',
    ],
  };

  test.each(readdirSync(CORPUS).filter((f) => f.endsWith('.html')))('when %s is tracked, then it is identical but for the tracked hrefs and the pixel', (file) => {
    const html = readFileSync(join(CORPUS, file), 'utf8');
    const { out, redirects, rebuilt, pixels } = track(html);
    expect(redirects).toEqual(EXPECTED[file]);
    expect(pixels).toBe(1);
    expect(rebuilt).toBe(html);
    const bodyEnd = scanHtml(html).bodyEnd;
    if (bodyEnd !== null) expect(out.slice(out.indexOf('<img src="https://t.mailroom.test/o/')).includes(html.slice(bodyEnd))).toBe(true);
  });
});
