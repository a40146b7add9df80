import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type RunningDispatcher, startDispatcher } from '../../services/webhook-dispatcher/src/start-dispatcher';
import { Receiver } from '../../services/webhook-dispatcher/test/support';
import { DnsServer } from '../support/dns-server';
import { apiClient } from '../support/http';
import { waitForEmail } from '../support/sending';
import { checkPage, eventually, launchBrowser, receivedOnce, sessionOf, TEST_PASSWORD } from './support/browser';
import { type DashboardStack, startDashboardStack } from './support/stack';

// A brand-new user's first session with the dashboard, page by page, following only what the
// README promises: sign up, a key, a first email, received mail, a webhook, a domain, another
// project, sign out. Every page is also checked for what a person would notice going wrong:
// errors, failed requests, markup from typed text, a page wider than a phone, lost focus,
// timestamps in mixed formats.
jest.setTimeout(120_000);

/** Typed by the user into subjects, names and descriptions: must come back as text. */
const HOSTILE = `<b>x</b> "><img src=x onerror=alert(1)>`;
const EMAIL = `first-${Date.now()}@example.com`;
const run = promisify(execFile);
/** A second project, with a name long enough to test the header on a phone. */
const SIDE_PROJECT = 'Side project for the autumn newsletter campaign to every customer in the northern region';
/** A remote image over https (its host does not resolve here: only whether it is asked for counts). */
const SECURE_IMAGE = 'https://images.journey.test/banner.png';
/** What an email's HTML tries inside its frame is refused by the frame's sandbox and policies, and reported on the console: deliberate. */
const FRAME_REFUSALS = [/violates the following Content Security Policy directive: "img-src/, /^request failed: GET \S+ csp$/, /Blocked script execution in 'about:srcdoc'/];

/** The only timestamp format the dashboard shows (formatDateTime in the context's en-US locale). */
const TIMESTAMP = /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M$/;

describe('a new user’s first journey through the dashboard', () => {
  let stack: DashboardStack;
  let dispatcher: RunningDispatcher;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token = '';
  let sentId = '';
  let webhookId = '';
  let firstProjectId = '';
  const receiver = new Receiver();
  const dns = new DnsServer({});
  // A server for the remote image in received mail: counts who asked for it.
  const pixelRequests: string[] = [];
  let pixelServer: Server;
  let pixelUrl = '';

  // What a person would see go wrong, page by page; each step expects none but the ones it names.
  let problems: string[] = [];
  const dialogs: string[] = [];
  /** Problems since the last call, leaving out those matching `allowed` (deliberate ones). */
  const takeProblems = (...allowed: RegExp[]) => {
    const left = problems.filter((p) => !allowed.some((a) => a.test(p)));
    problems = [];
    return left;
  };

  beforeAll(async () => {
    await Promise.all([receiver.start(), dns.start()]);
    pixelServer = createServer((req, res) => {
      pixelRequests.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
    }).listen(0, '127.0.0.1');
    await once(pixelServer, 'listening');
    pixelUrl = `http://127.0.0.1:${(pixelServer.address() as AddressInfo).port}/pixel.gif`;
    const env = { ALLOW_PRIVATE_NETWORKS: 'true', DNS_SERVERS: dns.address, WEBHOOK_RETRY_SCHEDULE: '3600', WEBHOOK_TIMEOUT_SECONDS: '5' };
    [stack, browser] = await Promise.all([startDashboardStack('dash_journey', env), launchBrowser()]);
    dispatcher = await startDispatcher(stack.t.config);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'Europe/Berlin' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText ?? ''}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.request().method()} ${response.url()}`);
    });
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dispatcher?.stop();
    await stack?.close();
    await receiver.stop();
    await dns.stop();
    pixelServer?.close();
  });

  afterEach(() => {
    expect(takeProblems()).toEqual([]);
    expect(dialogs).toEqual([]);
  });

  // ——— helpers: what a person checks on every page ———

  async function openFromNavigation(label: string, heading: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  }

  /** Axe at 1280 and 390 px, nothing wider than a 390 px phone, and every timestamp in main in the one format. */
  async function checkThisPage(name: string): Promise<void> {
    expect(await checkPage(page, `journey-${name}`)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 900 });
    // Read at 390 px, then back to the desktop width before judging (a failure must not leave the next step on a phone).
    const overflow = await page.evaluate<{ page: number; wide: string[] }>(`(() => {
      const width = document.documentElement.clientWidth;
      const wide = [...document.querySelectorAll('main *')]
        .filter((el) => el.getBoundingClientRect().right > width + 1 && !el.closest('.table-scroll, [data-scroll], pre'))
        .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
        .slice(0, 5).map((el) => el.tagName + '.' + el.className + ': ' + (el.textContent || '').slice(0, 40));
      return { page: document.documentElement.scrollWidth - width, wide };
    })()`);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(overflow).toEqual({ page: 0, wide: [] });
    const times = await page.evaluate<{ shown: string[]; iso: string[] }>(`(() => {
      const main = document.querySelector('main');
      const text = main ? main.innerText : '';
      return {
        shown: [...document.querySelectorAll('main time')].map((t) => t.textContent.trim()),
        iso: text.match(/\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}/g) || [],
      };
    })()`);
    expect(times.iso).toEqual([]);
    for (const t of times.shown) expect(t).toMatch(TIMESTAMP);
  }

  /** The typed text shows as text: in main, no <b> or <img src=x> made from it, and it reads back as typed. */
  async function expectShownAsText(where = page.locator('main')): Promise<void> {
    await where.getByText(HOSTILE, { exact: false }).filter({ visible: true }).first().waitFor();
    expect(await page.locator('main b, main img[src="x"]').count()).toBe(0);
  }

  /** What has the keyboard focus, and whether it shows (a :focus-visible outline). */
  const focus = () =>
    page.evaluate<{ tag: string; text: string; visible: boolean }>(`(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return { tag: 'BODY', text: '', visible: false };
      const style = getComputedStyle(el);
      return { tag: el.tagName, text: (el.getAttribute('aria-label') || el.textContent || '').trim(), visible: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0 };
    })()`);

  /** Timestamps shown in the cells of a table's column named `header`. */
  async function columnTimes(table: string, header: string): Promise<string[]> {
    return page.evaluate<string[]>(`(() => {
      const table = [...document.querySelectorAll('table')].find((t) => t.caption && t.caption.textContent.trim() === ${JSON.stringify(table)});
      if (!table) return ['no table'];
      const index = [...table.tHead.rows[0].cells].findIndex((c) => c.textContent.trim() === ${JSON.stringify(header)});
      return [...table.tBodies[0].rows].map((r) => r.cells[index] ? r.cells[index].textContent.trim() : 'no cell');
    })()`);
  }

  // ——— the journey ———

  test('1. a first visit goes to sign-in, which leads to sign-up; signing up lands on the overview of the first project', async () => {
    await page.goto(`${stack.url}/dashboard`);
    await page.getByRole('heading', { level: 1, name: 'Sign in to Mailroom' }).waitFor();
    // Nothing went wrong yet: no "sign in to see this page" for the dashboard's own front door.
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create your Mailroom account' }).waitFor();
    await checkThisPage('signup');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByLabel('Project name').fill('Acme shop');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(page.url()).toBe(`${stack.url}/dashboard/`);
    // The first project is the one in the switcher, and the overview says how to send a first email.
    expect(await page.getByLabel('Project').locator('option:checked').textContent()).toBe('Acme shop');
    firstProjectId = (await sessionOf(page)).projectId;
    await page.getByRole('heading', { name: 'Nothing sent in this range' }).waitFor();
    expect(await page.locator('main pre').first().textContent()).toContain(`curl -X POST ${stack.url}/emails`);
    await page.getByText(EMAIL).waitFor();
    await checkThisPage('overview-new');
  });

  test('2. on API keys, a key is created: its token shown once with a copy button and the first-email command', async () => {
    // The overview's own link to the API keys page.
    await page.locator('main').getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByRole('heading', { name: 'No API keys yet' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill(`laptop ${HOSTILE}`);
    await page.getByRole('button', { name: 'Create key' }).click();
    token = (await page.getByTestId('shown-once-value').textContent()) ?? '';
    expect(token).toMatch(/^mr_/);
    await page.getByRole('heading', { name: `Key “laptop ${HOSTILE}” created` }).waitFor();
    await page.getByRole('button', { name: 'Copy token' }).click();
    await page.getByText('Copied', { exact: true }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(token);
    expect(await page.locator('.shown-once pre').textContent()).toContain(`Bearer ${token}`);
    await page.getByRole('row').filter({ hasText: 'laptop' }).waitFor();
    await expectShownAsText();
    expect(await columnTimes('API keys', 'Created')).toEqual([expect.stringMatching(TIMESTAMP)]);
    await checkThisPage('api-key-created');

    // "Done" from the keyboard: the token goes, and the focus stays in the page.
    await page.getByRole('button', { name: 'Done, I have stored it' }).focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('shown-once-value').waitFor({ state: 'detached' });
    const after = await focus();
    expect(after.tag).not.toBe('BODY');
    expect(await page.content()).not.toContain(token);

    // A confirmation cancelled from the keyboard gives the focus back to its button, visibly.
    await page.getByRole('button', { name: `Revoke key laptop ${HOSTILE}` }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Revoke the key “laptop ${HOSTILE}”?` });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => expect(await focus()).toEqual({ tag: 'BUTTON', text: `Revoke key laptop ${HOSTILE}`, visible: true }));
  });

  test('3. the first email, sent as the key page suggests (its curl command, run in a terminal) and to a real inbox, is found, opened and seen delivered', async () => {
    await page.getByLabel('Name', { exact: true }).fill('terminal');
    await page.getByRole('button', { name: 'Create key' }).click();
    const command = (await page.locator('.shown-once pre').textContent()) ?? '';
    const terminalToken = (await page.getByTestId('shown-once-value').textContent()) ?? '';
    // Pasted into a shell as shown.
    const { stdout } = await run('bash', ['-c', `${command} --silent --show-error`]);
    const first = JSON.parse(stdout);
    expect(first.id).toMatch(/^em_|^[\w-]+$/);
    const app = apiClient(stack.url, { token: terminalToken });
    await waitForEmail(app, first.id, (e) => e.status === 'delivered');

    // Then a real one, to an inbox (the sink the sender relays to), with a subject as typed.
    const sent = await apiClient(stack.url, { token }).post('/emails', {
      from: 'shop@acme.example',
      to: 'reader@example.net',
      subject: `Order ${HOSTILE}`,
      html: '<p>Thanks for your order.</p>',
      text: 'Thanks for your order.',
    });
    expect(sent.status).toBe(200);
    sentId = sent.body.id;

    await openFromNavigation('Emails', 'Emails');
    const rows = page.getByRole('table', { name: 'Sent emails' }).getByRole('row');
    await eventually(async () => expect(await rows.count()).toBe(3));
    // Newest first.
    expect(await rows.nth(1).textContent()).toContain(`Order ${HOSTILE}`);
    await expectShownAsText();
    for (const t of await columnTimes('Sent emails', 'Sent')) expect(t).toMatch(TIMESTAMP);
    await checkThisPage('emails');

    await page.getByRole('link', { name: `Order ${HOSTILE}` }).click();
    await page.getByRole('heading', { level: 1, name: `Order ${HOSTILE}` }).waitFor();
    expect(await page.title()).toBe(`Order ${HOSTILE} · Mailroom`);
    // Its timeline grows to "delivered" as the person refreshes.
    const timeline = page.getByRole('list', { name: 'Timeline' }).getByRole('listitem');
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      expect(await timeline.allTextContents()).toEqual([expect.stringMatching(/^email\.sent/), expect.stringMatching(/^email\.delivered.*reader@example\.net · 250/)]);
    }, 20_000);
    await page.getByRole('table', { name: 'Recipients and their statuses' }).getByRole('row').nth(1).filter({ hasText: 'delivered' }).waitFor();
    expect(stack.sink.messages.flatMap((m) => m.recipients)).toContain('reader@example.net');
    await expectShownAsText();
    await checkThisPage('email-detail');
  });

  test('4. the list is searched by recipient and filtered by status, and the box shows the search', async () => {
    await page.getByRole('link', { name: 'Emails', exact: true }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Emails' }).waitFor();
    const rows = page.getByRole('table', { name: 'Sent emails' }).getByRole('row');
    await eventually(async () => expect(await rows.count()).toBe(3));
    await page.getByLabel('Recipient').fill('reader@example.net');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/dashboard\/emails\?to=reader%40example\.net$/);
    await eventually(async () => expect(await rows.count()).toBe(2));
    await page.getByLabel('Status').selectOption('delivered');
    await eventually(async () => expect(await rows.count()).toBe(2));
    await page.getByLabel('Status').selectOption('bounced');
    await page.getByRole('heading', { name: 'No email matches' }).waitFor();
    expect(await page.getByLabel('Recipient').inputValue()).toBe('reader@example.net');
    await checkThisPage('emails-filtered');
    await page.getByRole('button', { name: 'Clear' }).click();
    await eventually(async () => expect(await rows.count()).toBe(3));
    expect(await page.getByLabel('Recipient').inputValue()).toBe('');
  });

  test('5. a route is added on the Routes page; mail delivered to the MX shows under Received with its fields, attachment and sandboxed HTML', async () => {
    await openFromNavigation('Routes', 'Routes');
    await page.getByLabel('Match').fill('*@in.journey.test');
    await page.getByLabel('Name', { exact: true }).fill(`Support ${HOSTILE}`);
    await page.getByRole('button', { name: 'Create route' }).click();
    await page.getByRole('cell', { name: `Support ${HOSTILE}` }).waitFor();
    await expectShownAsText();
    await checkThisPage('routes');

    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: stack.mxPort, secure: false, ignoreTLS: true });
    await transport.sendMail({
      from: 'Customer <customer@example.org>',
      to: 'help@in.journey.test',
      subject: `Question ${HOSTILE}`,
      text: 'Where is my order?',
      html: `<p id="body">Where is my order?</p><img id="pixel" src="${pixelUrl}" alt="pixel"><img src="${SECURE_IMAGE}" alt="banner"><script>alert('script')</script><img src="x" onerror="alert('onerror')">`,
      attachments: [{ filename: 'invoice.txt', content: 'invoice 42', contentType: 'text/plain' }],
    });
    const owner = stack.t.api.as({ token });
    const received = await receivedOnce(owner);

    // From the route's row, as the Routes page links it.
    await page.getByRole('link', { name: '*@in.journey.test' }).click();
    await page.getByRole('heading', { level: 1, name: 'Received' }).waitFor();
    await page.getByRole('table', { name: 'Received emails' }).getByRole('link', { name: `Question ${HOSTILE}` }).waitFor();
    expect(await page.getByLabel('Route').locator('option:checked').textContent()).toBe(`Support ${HOSTILE} (*@in.journey.test)`);
    await expectShownAsText();
    for (const t of await columnTimes('Received emails', 'Received')) expect(t).toMatch(TIMESTAMP);
    await checkThisPage('received');

    await page.getByRole('link', { name: `Question ${HOSTILE}` }).click();
    await page.getByRole('heading', { level: 1, name: `Question ${HOSTILE}` }).waitFor();
    const details = page.locator('main dl').first();
    expect(await details.textContent()).toContain('Customer <customer@example.org>');
    expect(await details.textContent()).toContain('help@in.journey.test');
    await page.getByRole('region', { name: 'Authentication verdicts' }).waitFor();
    const secureRequests: string[] = [];
    page.on('request', (request) => request.url().startsWith('https://images.journey.test/') && secureRequests.push(request.url()));
    const frame = page.frameLocator('iframe[title^="Content of"]');
    await frame.locator('#body').waitFor();
    await expect(page.locator('iframe[title^="Content of"]').getAttribute('sandbox')).resolves.toBe('');
    // The remote image has not been asked for, and neither script nor handler ran.
    expect(pixelRequests).toEqual([]);
    await expectShownAsText();

    const [attachment] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download invoice.txt' }).click()]);
    expect(attachment.suggestedFilename()).toBe('invoice.txt');
    expect(readFileSync(await attachment.path(), 'utf8')).toBe('invoice 42');
    expect(page.url()).toBe(`${stack.url}/dashboard/received/${received.id}`);
    await checkThisPage('received-detail');
    expect(takeProblems(...FRAME_REFUSALS)).toEqual([]);
    expect(secureRequests).toEqual([]);

    // Asked for: the remote image over https is requested now. One over plain http stays blocked
    // (the dashboard's policy is `img-src 'self' data: https:`), and the page says so.
    await page.getByRole('button', { name: 'Load remote images' }).click();
    await page.getByText('Remote images are loaded').waitFor();
    await eventually(async () => expect(secureRequests).toEqual([SECURE_IMAGE]));
    await page.getByText('Images over plain http: stay blocked: only https: images load here.').waitFor();
    expect(pixelRequests).toEqual([]);
    // The https image's host does not resolve here: its failed request is deliberate.
    expect(takeProblems(...FRAME_REFUSALS, /request failed: GET https:\/\/images\.journey\.test\//, /ERR_NAME_NOT_RESOLVED/)).toEqual([]);
    expect(dialogs).toEqual([]);
  });

  test('6. a webhook is created (secret shown once), a test event sent, and the attempt is in its log', async () => {
    await openFromNavigation('Webhooks', 'Webhooks');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description').fill(`Orders ${HOSTILE}`);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = (await page.getByTestId('shown-once-value').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy signing secret' }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    await page.getByRole('row').filter({ hasText: receiver.url }).waitFor();
    await expectShownAsText();
    await checkThisPage('webhook-created');

    await page.getByRole('link', { name: 'Open the webhook' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    webhookId = page.url().split('/').at(-1) ?? '';
    expect(await page.content()).not.toContain(secret);
    await expectShownAsText();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/^Test event: Delivered: HTTP 200 in \d+ ms$/).waitFor();
    const attempts = page.getByRole('table', { name: 'Delivery attempts' });
    await attempts.getByRole('row').filter({ hasText: 'webhook.test' }).waitFor();
    expect(await attempts.getByRole('row').count()).toBe(2);
    expect(await attempts.getByRole('row').nth(1).textContent()).toContain('200');
    expect(receiver.requests.at(-1)?.headers['x-service-event-type']).toBe('webhook.test');
    for (const t of await columnTimes('Delivery attempts', 'When')) expect(t).toMatch(TIMESTAMP);
    await checkThisPage('webhook-detail');
  });

  test('7. a sending domain is added and its DNS records have copy buttons for name and value', async () => {
    await openFromNavigation('Domains', 'Domains');
    await page.getByLabel('Domain name').fill('journey.example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const card = page.getByRole('region', { name: /journey\.example/ });
    await card.waitFor();
    const records = card.getByRole('listitem');
    expect(await records.count()).toBeGreaterThan(3);
    for (const button of ['Copy name', 'Copy value']) expect(await card.getByRole('button', { name: button }).count()).toBe(await records.count());
    const firstValue = (await records.first().locator('dd code').nth(1).textContent()) ?? '';
    await records.first().getByRole('button', { name: 'Copy value' }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(firstValue);
    await checkThisPage('domains');

    // Delete, cancelled from the keyboard: focus back on the button.
    await card.getByRole('button', { name: 'Delete journey.example' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Delete the domain journey.example?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => expect(await focus()).toEqual({ tag: 'BUTTON', text: 'Delete journey.example', visible: true }));
    expect(await card.textContent()).toMatch(/Last checked (—|[A-Z][a-z]{2} \d)/);
  });

  test('8. another project (made with the API) is picked in the switcher, on a resource page and on a list, and back', async () => {
    // Owners create projects with the API (the dashboard has no form for it): from a terminal, signed in.
    const login = await apiClient(stack.url).post('/auth/login', { email: EMAIL, password: TEST_PASSWORD });
    expect(login.status).toBe(200);
    // …naming the project they own (X-Project-Id), as the README's Authentication says.
    const made = await apiClient(stack.url, { session: login.body.sessionToken, project: firstProjectId }).post('/projects', { name: SIDE_PROJECT });
    expect(made.status).toBe(201);

    await page.goto(`${stack.url}/dashboard/emails/${sentId}`);
    await page.getByRole('heading', { level: 1, name: `Order ${HOSTILE}` }).waitFor();
    const switcher = page.getByRole('combobox', { name: 'Project' });
    await eventually(async () => expect(await switcher.locator('option').allTextContents()).toEqual(expect.arrayContaining(['Acme shop', SIDE_PROJECT])));
    await switcher.selectOption({ label: SIDE_PROJECT });
    await page.getByRole('heading', { level: 1, name: 'Emails' }).waitFor();
    expect(page.url()).toBe(`${stack.url}/dashboard/emails`);
    await page.getByRole('heading', { name: 'No email sent yet' }).waitFor();
    await openFromNavigation('Webhooks', 'Webhooks');
    await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
    await checkThisPage('other-project');

    await switcher.selectOption({ label: 'Acme shop' });
    await page.getByRole('link', { name: receiver.url }).waitFor();
    expect((await sessionOf(page)).projectId).toBe(firstProjectId);
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  test('9. after signing out, Back shows the sign-in page and none of the private data', async () => {
    await page.goto(`${stack.url}/dashboard/webhooks/${webhookId}`);
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    await openFromNavigation('Emails', 'Emails');
    await page.getByRole('link', { name: `Order ${HOSTILE}` }).waitFor();
    const { sessionToken } = await sessionOf(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to Mailroom' }).waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('You are signed out');
    expect((await apiClient(stack.url, { session: sessionToken }).get('/projects')).status).toBe(401);
    expect(await page.evaluate("sessionStorage.getItem('mailroom.session')")).toBeNull();

    for (const step of ['back', 'back', 'forward'] as const) {
      if (step === 'back') await page.goBack();
      else await page.goForward();
      await page.getByRole('heading', { level: 1, name: 'Sign in to Mailroom' }).waitFor();
      const text = (await page.locator('body').textContent()) ?? '';
      for (const secretish of ['Order', receiver.url, EMAIL, 'Acme shop', 'Sign out']) expect(text).not.toContain(secretish);
    }
    // The revoked session asked nothing of the API on the way back (no 401 for the person to see).
    expect(takeProblems()).toEqual([]);
  });
});
