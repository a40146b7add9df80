import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { launchBrowser } from '../../../test/dashboard/support/browser';
import type { ApiClient } from '../../../test/support/http';
import { waitForEmail } from '../../../test/support/sending';
import type { SmtpSink } from '../../../test/support/smtp-sink';
import { PIXEL_GIF, type RunningTracking } from '../src';
import { startTrackedSending, type TrackedSending } from './support';

/**
 * Opens a tracked email as a person does, in Chromium: the HTML part the sink captured is served
 * from a local "destination site", the pixel loads, each link is clicked for real and the
 * browser follows the tracking redirect; it must land exactly where the untracked link goes.
 */

const RECIPIENT = 'ada@example.test';
// Clicks on different links of one message less than a second apart are a scanner's (bot-rules.ts);
// a person is slower, and so is this test.
const CLICK_SPACING_MS = 1_100;

/** A local site the email links to: records every request's path and query, answers a page. */
class DestinationSite {
  readonly requests: string[] = [];
  /** The documents served at /mail/<name> (the email's HTML, as the sink got it, and as it was sent). */
  readonly mail = new Map<string, string>();
  private server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const target = req.url ?? '/';
      this.requests.push(target);
      const mail = target.startsWith('/mail/') ? this.mail.get(target.slice(6)) : undefined;
      if (mail !== undefined) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(mail);
      } else if (target.startsWith('/logo.gif')) {
        res.writeHead(200, { 'content-type': 'image/gif' });
        res.end(PIXEL_GIF);
      } else if (target === '/favicon.ico') {
        res.writeHead(404);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!DOCTYPE html><html><head><title>Landing</title></head><body><h1>Landing</h1><div style="height:3000px"></div><h2 id="section-2">Section 2</h2></body></html>');
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Requests to pages the email links to (not the email itself, its image or the favicon) since `from`. */
  visitsSince(from: number): string[] {
    return this.requests.slice(from).filter((r) => !r.startsWith('/mail/') && !r.startsWith('/logo.gif') && r !== '/favicon.ico');
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The email: one link per shape a browser has its own way of reading, plus links that must stay as they are. */
function emailHtml(site: string): { html: string; tracked: string[] } {
  const port = new URL(site).port;
  const longQuery = Array.from({ length: 170 }, (_, i) => `param${i}=value-${i}`).join('&amp;');
  const links: Array<[id: string, attributes: string]> = [
    ['amp', `href="${site}/pricing?plan=pro&amp;ref=mail&amp;utm_source=newsletter"`],
    // Legacy references without ';' in an attribute: decoded only when neither '=' nor an alphanumeric follows (HTML §13.2.5.73).
    ['legacy', `href="${site}/legacy?a=1&copy=2&not=3&reg"`],
    ['percent', `href="${site}/files/a%2Fb%20c/%7Euser?q=caf%C3%A9%20au%20lait&amp;path=%2Fa%2Fb&amp;plus=1%2B1&amp;pct=100%25&amp;bad=%zz"`],
    ['fragment', `href="${site}/docs/guide?v=2#section-2"`],
    ['non-ascii', `href="${site}/café/ümlaut?q=naïve&amp;emoji=😀#frag-é"`],
    ['upper', `href="HTTP://127.0.0.1:${port}/Upper?Q=Mixed"`],
    // Chromium percent-encodes '|' and '^' in a path where the URL Standard (and Node) does not.
    ['odd-chars', `href="${site}/odd/{a}|b^c\`d?x='y'&amp;z={w}|v^"`],
    ['spaces', `href="  ${site}/with space/?q=a b\t"`],
    ['references', `href="${site}/&#x65;ncoded/&#233;?x=&#49;&amp;y=&lt;2&gt;"`],
    ['unquoted', `href=${site}/unquoted?a=1&amp;b=2`],
    ['long', `href="${site}/long/${'abcdefghij'.repeat(100)}?${longQuery}"`],
    ['off', `href="${site}/unsubscribe?u=42&amp;list=news" data-mailroom-track="off"`],
    ['off-upper', `href="${site}/preferences?u=42" data-mailroom-track="OFF"`],
    ['mailto', 'href="mailto:help@acme.example?subject=Hi%20there"'],
    ['fragment-only', 'href="#top"'],
  ];
  const body = links.map(([id, attributes]) => `<p><a id="${id}" ${attributes}>${id}</a></p>`).join('\n');
  const html = [
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>News</title></head><body>',
    `<p id="top">Hello</p><img id="logo" src="${site}/logo.gif?v=1&amp;w=1" width="1" height="1" alt="Acme">`,
    body,
    '</body></html>',
  ].join('\n');
  const tracked = links.map(([id]) => id).filter((id) => !['off', 'off-upper', 'mailto', 'fragment-only'].includes(id));
  return { html, tracked };
}

let stack: TrackedSending;
let sink: SmtpSink;
let tracking: RunningTracking;
let api: ApiClient;
let site: DestinationSite;
let browser: Browser;
let userAgent: string;

beforeAll(async () => {
  [stack, site, browser] = await Promise.all([startTrackedSending('trkbrowser'), new DestinationSite().start(), launchBrowser()]);
  ({ sink, tracking, api } = stack);
  // Headless Chromium names itself "HeadlessChrome", as headless link scanners do (isbot's list has it);
  // a person's Chromium sends the same string without "Headless".
  const probe = await browser.newPage();
  userAgent = (await probe.evaluate<string>('navigator.userAgent')).replace('HeadlessChrome/', 'Chrome/');
  await probe.close();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await stack?.stop();
});

async function newContext(agent?: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...(agent ? { userAgent: agent } : {}) });
  context.setDefaultTimeout(10_000);
  return { context, page: await context.newPage() };
}

/** Each link of the page by id: its attribute as the HTML parser read it, and the URL Chromium resolves it to. */
function linksOf(page: Page): Promise<Record<string, { attribute: string; href: string }>> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    return Object.fromEntries([...doc.querySelectorAll('a[id]')].map((a: any) => [a.id, { attribute: a.getAttribute('href'), href: a.href }]));
  });
}

/** Waits for the `<img>` to load and decode; answers its natural size, or why it did not decode. */
function decodedSize(page: Page, selector: string): Promise<[number, number] | string> {
  return page.evaluate(async (sel) => {
    const img = (globalThis as any).document.querySelector(sel);
    if (!img) return `no ${sel}`;
    try {
      await img.decode();
      return [img.naturalWidth, img.naturalHeight] as [number, number];
    } catch (error) {
      return `${sel} did not decode: ${error}`;
    }
  }, selector);
}

describe('a tracked email opened in Chromium', () => {
  test('when a person opens it and clicks every link, then the pixel decodes, each link lands exactly where the untracked link goes (fragment and query kept), and the events are a person\'s', async () => {
    const { html, tracked } = emailHtml(site.url);
    const res = await api.post('/emails', { from: 'Acme <hello@acme.test>', to: RECIPIENT, subject: 'News', text: 'Hi', html, trackOpens: true, trackClicks: true });
    expect(res.status).toBe(200);
    const emailId: string = res.body.id;
    const delivered = await waitForEmail(api, emailId, (e) => e.status === 'delivered');
    const [message] = await sink.waitFor(1);
    const sentHtml = (await simpleParser(message!.raw)).html;
    expect(typeof sentHtml).toBe('string');
    site.mail.set('original', html);
    site.mail.set('tracked', sentHtml as string);

    const { context, page } = await newContext(userAgent);
    const pixelLoads: Response[] = [];
    page.on('response', (r) => {
      if (r.url().startsWith(`${tracking.url}/o/`)) pixelLoads.push(r);
    });

    // What each link means untracked: the attribute as Chromium's HTML parser read it, and the URL it resolves it to.
    await page.goto(`${site.url}/mail/original`);
    const original = await linksOf(page);
    expect(pixelLoads).toHaveLength(0);

    const mailUrl = `${site.url}/mail/tracked`;
    await page.goto(mailUrl);
    const rewritten = await linksOf(page);
    // Tracked links point at the tracking service; the others are as written.
    for (const id of Object.keys(original)) {
      const href = rewritten[id]!.href;
      if (tracked.includes(id)) expect([id, href]).toEqual([id, expect.stringMatching(new RegExp(`^${tracking.url}/c/[A-Za-z0-9_-]+$`))]);
      else expect([id, rewritten[id]!.attribute]).toEqual([id, original[id]!.attribute]);
    }
    // The pixel: an <img> of the tracking service that Chromium fetched and decoded as a 1×1 image.
    const pixelSelector = `img[src^="${tracking.url}/o/"]`;
    expect(await page.locator(pixelSelector).count()).toBe(1);
    expect(await decodedSize(page, pixelSelector)).toEqual([1, 1]);
    expect(pixelLoads.map((r) => [r.status(), r.headers()['content-type']])).toEqual([[200, 'image/gif']]);
    // The email's own image is left as it is and loads from where it was.
    expect(await page.locator('#logo').getAttribute('src')).toBe(`${site.url}/logo.gif?v=1&w=1`);
    expect(await decodedSize(page, '#logo')).toEqual([1, 1]);

    // Each tracked link clicked for real (the first twice), then the ones left alone.
    const clickOrder = [...tracked, tracked[0]!, 'off', 'off-upper'];
    const clicked: string[] = [];
    let lastClick = 0;
    for (const id of clickOrder) {
      if (page.url() !== mailUrl) await page.goto(mailUrl);
      // Only a click through the tracking service is stamped (and judged by its timing); a link marked off goes straight to the site.
      const wait = lastClick + CLICK_SPACING_MS - Date.now();
      if (tracked.includes(id) && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const before = site.requests.length;
      const landed = page.waitForResponse((r) => r.request().isNavigationRequest() && r.frame() === page.mainFrame() && r.status() !== 302);
      await page.click(`#${id}`);
      const response = await landed;
      // The tracking service stamped the click before it answered: at most now.
      if (tracked.includes(id)) lastClick = Date.now();
      await page.waitForURL((u) => u.href !== mailUrl);
      const expected = new URL(original[id]!.href);
      // The browser ends exactly where the untracked link goes, fragment included.
      expect({ id, status: response.status(), url: page.url() }).toEqual({ id, status: 200, url: expected.href });
      // The site got the exact path and query (a fragment never leaves the browser).
      expect({ id, visits: site.visitsSince(before) }).toEqual({ id, visits: [expected.pathname + expected.search] });
      // Through the tracking service's 302 for a tracked link, straight to the site for one marked off.
      const from = response.request().redirectedFrom();
      if (tracked.includes(id)) {
        expect({ id, from: from?.url() }).toEqual({ id, from: rewritten[id]!.href });
        expect((await from!.response())?.status()).toBe(302);
        expect(from!.redirectedFrom()).toBeNull();
        clicked.push(id);
      } else {
        expect({ id, from }).toEqual({ id, from: null });
      }
    }
    await context.close();
    expect(pixelLoads.every((r) => r.status() === 200)).toBe(true);

    // The link each event names: the attribute as a URL parser (the URL Standard's, as the sender's) reads it.
    const link = (id: string) => new URL(original[id]!.attribute).href;
    await tracking.buffer.flush();
    const email = (await api.get(`/emails/${emailId}`)).body;
    const opens = email.events.filter((e: any) => e.type === 'email.opened');
    const clicks = email.events.filter((e: any) => e.type === 'email.clicked');
    // One open per time the browser fetched the pixel, each a person's.
    expect(opens.map((e: any) => [e.data.recipient, e.data.open.is_bot, e.data.open.user_agent])).toEqual(pixelLoads.map(() => [RECIPIENT, false, userAgent]));
    expect(clicks.map((e: any) => [e.data.recipient, e.data.click.link, e.data.click.is_bot, e.data.click.user_agent])).toEqual(
      clicked.map((id) => [RECIPIENT, link(id), false, userAgent]),
    );
    // Engagement leaves the delivery status as it was.
    expect(email.status).toBe(delivered.status);
    expect(email.recipients[0]).toMatchObject({ email: RECIPIENT, status: delivered.recipients[0].status, opens: pixelLoads.length, clicks: clicked.length });

    // Clicks per link: each tracked link once, the first twice, none of them a bot's.
    const perLink = (await api.get(`/emails/${emailId}/clicks`)).body;
    expect(perLink.hasMore).toBe(false);
    const counts = Object.fromEntries(perLink.data.map((c: any) => [c.link, [c.clicks, c.uniqueClicks, c.botClicks]]));
    expect(counts).toEqual(Object.fromEntries(tracked.map((id, i) => [link(id), [i === 0 ? 2 : 1, 1, 0]])));

    // Headless Chromium as it is says "HeadlessChrome": its open is recorded, as a bot's, and not counted.
    const headless = await newContext();
    await headless.page.goto(mailUrl);
    expect(await decodedSize(headless.page, pixelSelector)).toEqual([1, 1]);
    await headless.context.close();
    await tracking.buffer.flush();
    const after = (await api.get(`/emails/${emailId}`)).body;
    const lastOpen = after.events.filter((e: any) => e.type === 'email.opened').at(-1);
    expect(lastOpen.data.open).toMatchObject({ is_bot: true, user_agent: expect.stringContaining('HeadlessChrome/') });
    expect(after.recipients[0].opens).toBe(pixelLoads.length);
  }, 50_000);
});
