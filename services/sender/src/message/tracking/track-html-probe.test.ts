import { deriveKey, newId, TrackingTokens } from '@mailroom/core';
import { type Browser, chromium } from 'playwright-core';
import { scanHtml } from './scan-html';
import { HtmlTracking, type TrackedEmail } from './track-html';

const BASE = 'https://t.mailroom.test';
const tokens = new TrackingTokens(deriveKey('a master secret of sufficient length!', 'tracking'));
const tracking = new HtmlTracking({ tokens, baseUrl: BASE });

/** Tracks `html` for one recipient; returns the output and the URLs its rewritten links redirect to, in document order. */
function track(html: string, overrides: Partial<TrackedEmail> = {}) {
  const personalize = tracking.forEmail({ id: newId('email'), html, trackOpens: false, trackClicks: true, ...overrides });
  const out = personalize ? personalize(html, { id: newId('recipient'), address: 'ada@example.test' }) : html;
  const redirects = scanHtml(out)
    .hrefs.filter((site) => site.value.startsWith(`${BASE}/c/`))
    .map((site) => {
      const target = tokens.verify(site.value.slice(BASE.length + 3));
      return target?.kind === 'click' ? target.url : null;
    });
  return { out, redirects };
}

describe('link tracking of real-world link shapes', () => {
  test('when an inline SVG link names its target with xlink:href (SVG 1.1), then it is tracked; href wins when both are there', () => {
    const html =
      '<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><a xlink:href="https://svg.example/old"><rect/></a>' +
      '<a href="https://svg.example/new" xlink:href="https://svg.example/ignored"><rect/></a><a XLINK:HREF=\'https://svg.example/upper\'><rect/></a></svg>' +
      '<a xlink:href="https://html.example/not-a-link">x</a>';
    const { out, redirects } = track(html);
    expect(redirects).toEqual(['https://svg.example/old', 'https://svg.example/new', 'https://svg.example/upper']);
    expect(out).toContain('xlink:href="https://svg.example/ignored"');
    expect(out).toContain('<a xlink:href="https://html.example/not-a-link">x</a>');
  });

  describe('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'], headless: true });
    });
    afterAll(async () => {
      await browser.close();
    });

    test('when a mail client (scripts off) renders the document, then every http(s) link it can follow is a tracked one, to the same URL', async () => {
      const html = [
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>',
        '<svg width="10" height="10"><a xlink:href="https://svg.example/xlink"><rect width="5" height="5"/></a><a href="https://svg.example/href"><rect/></a></svg>',
        '<noscript><a href="https://noscript.example/">n</a></noscript>',
        '<map name="m"><area href="https://area.example/" shape="rect" coords="0,0,1,1"></map>',
        '<a HREF=https://upper.example/unquoted>u</a> <a href=\'https://single.example/?q="x"\'>s</a>',
        '<a href="\n  https://ws.example/pa\tth?q=1\r\n ">w</a> <a href="https://[2001:DB8::1]:8443/v6">v6</a> <a href="http://bücher.example/ä?ö=ü">idn</a>',
        '<a href="https://u:p@userinfo.example:444/x">ui</a> <a href="https://bad.example/%zz%">pct</a> <a href="javascript:void(0)">js</a> <a href="sms:+1">sms</a>',
        '<a href="https://dup.example/">1</a><a href="https://dup.example/">2</a>',
        '<!--[if mso]><v:roundrect href="https://vml.example/"><center>Go</center></v:roundrect><![endif]-->',
        '</body></html>',
      ].join('\n');
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.setContent(html);
      // Each link's target as Chromium resolves it (an SVG link's is an SVGAnimatedString); as a string, the DOM is not in this package's types.
      const followed = await page.evaluate<string[]>(
        `[...document.querySelectorAll('a, area')]
           .map((a) => (a instanceof SVGAElement ? new URL(a.href.baseVal, document.baseURI).href : a.href))
           .filter((href) => /^https?:/.test(href))`,
      );
      await context.close();
      expect(track(html).redirects).toEqual(followed);
    });
  });
});
