import type { Browser } from 'playwright-core';
import { createKey } from '../support/gateway';
import { waitForEmail } from '../support/sending';
import { checkPage, eventually, launchBrowser, newDashboardContext, sessionOf, signUpInBrowser } from './support/browser';
import { apiAsPage, startDashboardStack, type DashboardStack } from './support/stack';

jest.setTimeout(60_000);

describe('the dashboard: overview and sent emails', () => {
  let stack: DashboardStack;
  let browser: Browser;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startDashboardStack('dash_emails'), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  test('when someone signs up, creates a key and sends an email through the API, then the dashboard shows it delivered with its timeline', async () => {
    const { context, page, pageErrors } = await newDashboardContext(browser);
    await signUpInBrowser(page, stack.url);
    expect(await checkPage(page, 'overview')).toEqual([]);

    // Before any send: the empty state says how to send the first email.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Emails' }).click();
    await page.getByRole('heading', { name: 'No email sent yet' }).waitFor();
    await expect(page.locator('pre').textContent()).resolves.toContain(`curl -X POST ${stack.url}/emails`);
    expect(await checkPage(page, 'emails-empty')).toEqual([]);

    const owner = await apiAsPage(stack, await sessionOf(page));
    const app = stack.t.api.as({ token: (await createKey(owner)).token });
    const html = '<h1>Hello</h1><p>Welcome aboard.</p><img src="https://tracker.example/pixel.gif" alt="pixel">';
    const sent = await app.post('/emails', { from: 'app@acme.example', to: 'reader@example.net', subject: 'Welcome', html, text: 'Welcome aboard.' });
    expect(sent.status).toBe(200);
    const other = await app.post('/emails', { from: 'app@acme.example', to: 'someone.else@example.net', subject: 'Another', text: 'Hi' });
    await waitForEmail(app, sent.body.id, (e) => e.status === 'delivered');
    await waitForEmail(app, other.body.id, (e) => e.status === 'delivered');
    expect(stack.sink.messages.flatMap((m) => m.recipients)).toEqual(expect.arrayContaining(['reader@example.net']));

    await page.reload();
    const rows = page.getByRole('table', { name: 'Sent emails' }).getByRole('row');
    await eventually(async () => expect(await rows.count()).toBe(3)); // the header and two emails
    // Search by recipient: GET /emails?to=
    await page.getByLabel('Recipient').fill('reader@example.net');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/dashboard\/emails\?to=reader%40example\.net$/);
    await eventually(async () => expect(await rows.count()).toBe(2));
    // Filter by status.
    await page.getByLabel('Status').selectOption('bounced');
    await page.getByRole('heading', { name: 'No email matches' }).waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await eventually(async () => expect(await rows.count()).toBe(3));
    expect(await checkPage(page, 'emails')).toEqual([]);

    await page.getByRole('link', { name: 'Welcome' }).click();
    await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
    const recipients = page.getByRole('table', { name: 'Recipients and their statuses' });
    await expect(recipients.getByRole('row').nth(1).textContent()).resolves.toMatch(/reader@example\.net.*delivered/);
    const timeline = page.getByRole('list', { name: 'Timeline' }).getByRole('listitem');
    await expect(timeline.allTextContents()).resolves.toEqual([expect.stringMatching(/^email\.sent/), expect.stringMatching(/^email\.delivered.*reader@example\.net · 250/)]);

    // The HTML is in a frame that may run nothing and load nothing remote until asked.
    const frameElement = page.locator('iframe[title^="Content of"]');
    await expect(frameElement.getAttribute('sandbox')).resolves.toBe('');
    const frame = page.frameLocator('iframe[title^="Content of"]');
    await frame.getByRole('heading', { name: 'Hello' }).waitFor();
    const tracker: string[] = [];
    page.on('request', (request) => request.url().includes('tracker.example') && tracker.push(request.url()));
    await expect(frameElement.getAttribute('srcdoc')).resolves.toContain("img-src data: cid:;");
    await page.getByRole('button', { name: 'Load remote images' }).click();
    await expect(frameElement.getAttribute('srcdoc')).resolves.toContain('img-src https: data: cid:');
    await eventually(async () => expect(tracker.length).toBeGreaterThan(0)); // asked for only after the click
    expect(await checkPage(page, 'email-detail')).toEqual([]);

    // The overview counts them (GET /stats), per hour over the last 24 hours.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByLabel('Range').selectOption('24h');
    await page.getByRole('img', { name: /^Sent: 2 in all, at most 2/ }).waitFor();
    await page.getByRole('img', { name: /^Delivered: 2 in all/ }).waitFor();
    await page.getByRole('img', { name: /^Bounced: 0 in all\.$/ }).waitFor();
    await expect(page.locator('.card', { hasText: 'Bounce rate' }).textContent()).resolves.toContain('0.00 %');
    expect(await checkPage(page, 'overview-with-mail')).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
