import type { Browser, Page } from 'playwright-core';
import { createKey } from '../support/gateway';
import type { ApiClient } from '../support/http';
import { waitForEmail } from '../support/sending';
import { checkPage, eventually, launchBrowser, newDashboardContext, sessionOf, signUpInBrowser } from './support/browser';
import { apiAsPage, type DashboardStack, startDashboardStack } from './support/stack';

// A new operator's walk through the dashboard: what broke or confused on the way, each fixed.
jest.setTimeout(90_000);

/** Goes to a page through the navigation's link, as a person would, and waits for its heading. */
async function openFromNavigation(page: Page, label: string, heading: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** The accessible name of the element that has the keyboard focus ("BODY" when focus was lost). */
const focused = (page: Page) => page.evaluate<string>("document.activeElement?.tagName === 'BUTTON' ? document.activeElement.textContent : document.activeElement?.tagName ?? ''");

/** How far the page is wider than the window (0 when nothing sticks out). */
const overflow = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

describe('the dashboard walked through as a new operator', () => {
  let stack: DashboardStack;
  let browser: Browser;
  beforeAll(async () => {
    // The tracking service too, so the timeline holds opens and clicks; private networks, for a webhook to a local URL.
    const env = { TRACKING_MIN_CLICK_SECONDS: '0', ALLOW_PRIVATE_NETWORKS: 'true' };
    [stack, browser] = await Promise.all([startDashboardStack('dash_walkthrough', env, { tracking: true }), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  /** Signs a new owner up in a fresh tab (optionally in another time zone); answers the tab and an API key client of its project. */
  async function newOwner(options: { timezoneId?: string } = {}) {
    const tab = options.timezoneId
      ? await (async () => {
          const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: options.timezoneId, locale: 'en-US' });
          context.setDefaultTimeout(10_000);
          const page = await context.newPage();
          const pageErrors: string[] = [];
          page.on('pageerror', (error) => pageErrors.push(error.message));
          return { context, page, pageErrors };
        })()
      : await newDashboardContext(browser);
    await signUpInBrowser(tab.page, stack.url);
    const owner = await apiAsPage(stack, await sessionOf(tab.page));
    const app = stack.t.api.as({ token: (await createKey(owner)).token });
    return { ...tab, owner, app };
  }

  async function send(app: ApiClient, body: Record<string, unknown>): Promise<string> {
    const sent = await app.post('/emails', { from: 'app@acme.example', ...body });
    expect(sent.status).toBe(200);
    return sent.body.id;
  }

  test('when the person is west of UTC, then the overview names each daily bucket by its UTC day, so today’s mail is counted under today', async () => {
    const { context, page, app, pageErrors } = await newOwner({ timezoneId: 'America/Los_Angeles' });
    const id = await send(app, { to: 'reader@example.net', subject: 'Counted today', text: 'Hi' });
    await waitForEmail(app, id, (e) => e.status === 'delivered');
    const todayUtc = () => new Date().toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
    const before = todayUtc();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('img', { name: /^Sent: 1 in all/ }).waitFor();
    await page.getByText('The figures as a table').click();
    const table = page.getByRole('table', { name: 'Events per day' });
    // The API's last bucket is today's UTC day; 00:00 UTC is the evening before in Los Angeles.
    const last = table.getByRole('row').last().getByRole('cell');
    expect([before, todayUtc()]).toContain(await last.first().textContent());
    await expect(last.nth(1).textContent()).resolves.toBe('1');
    await expect(table.getByRole('columnheader').first().textContent()).resolves.toBe('Day (UTC)');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  test('when an email has a 200-character one-word subject and a tracked click on a long URL, then its page keeps to a 390 px screen and the timeline shows the open and the click', async () => {
    const { context, page, app, pageErrors } = await newOwner();
    const subject = `Order-${'x'.repeat(194)}`;
    const link = `https://shop.example.com/${'product-'.repeat(30)}?ref=${'y'.repeat(80)}`;
    const id = await send(app, { to: 'tracked@example.net', subject, html: `<p>Hi <a href="${link}">buy</a></p>`, trackOpens: true, trackClicks: true });
    await waitForEmail(app, id, (e) => e.status === 'delivered');
    // The recipient opens the message and clicks its link (the tracking URLs the sender put in it).
    const message = stack.sink.messages.find((m) => m.recipients.includes('tracked@example.net'));
    const source = (message?.raw.toString('utf8') ?? '').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const hits = [...new Set(source.match(/http:\/\/127\.0\.0\.1:\d+\/[oc]\/[\w.~-]+/g) ?? [])];
    expect(hits).toHaveLength(2);
    for (const url of hits) await fetch(url, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120 Safari/537.36' } });
    await eventually(async () => {
      const email = await app.get(`/emails/${id}`);
      expect(email.body.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['email.opened', 'email.clicked']));
    });

    await page.goto(`${stack.url}/dashboard/emails/${id}`);
    await page.getByRole('heading', { level: 1, name: subject }).waitFor();
    const timeline = await page.getByRole('list', { name: 'Timeline' }).getByRole('listitem').allTextContents();
    expect(timeline).toEqual(
      expect.arrayContaining([expect.stringMatching(/^email\.opened.*tracked@example\.net$/), expect.stringMatching(new RegExp(`^email\\.clicked.*tracked@example\\.net · ${link.replace(/[?.]/g, '\\$&')}$`))]),
    );
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await overflow(page)).toBe(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await checkPage(page, 'walkthrough-email-long-values')).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  test('when a keyboard user pages through the emails and clears a search, then focus stays on the pager and the search box shows what the list is filtered by', async () => {
    const { context, page, app, pageErrors } = await newOwner();
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) ids.push(await send(app, { to: `user${i}@example.net`, subject: `Bulk ${i}`, text: 'x' }));
    await waitForEmail(app, ids[20] as string, (e) => e.status === 'delivered');
    await openFromNavigation(page, 'Emails', 'Emails');
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await pager.getByText('Page 1').waitFor();
    await pager.getByRole('button', { name: 'Next' }).focus();
    await page.keyboard.press('Enter');
    await pager.getByText('Page 2').waitFor();
    await eventually(async () => expect(await page.getByRole('table', { name: 'Sent emails' }).getByRole('row').count()).toBe(2));
    // The last page: "Next" can do nothing now, and says so, but the focus stays where the person is.
    expect(await focused(page)).toBe('Next');
    await expect(pager.getByRole('button', { name: 'Next' }).getAttribute('aria-disabled')).resolves.toBe('true');
    await page.keyboard.press('Enter'); // ignored: still page 2
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toBe('Previous');
    await page.keyboard.press('Enter');
    await pager.getByText('Page 1').waitFor();
    expect(await focused(page)).toBe('Previous');

    await page.getByLabel('Recipient').fill('user3@example.net');
    await page.getByRole('button', { name: 'Search' }).click();
    await eventually(async () => expect(await page.getByRole('table', { name: 'Sent emails' }).getByRole('row').count()).toBe(2));
    // Back to every email through the navigation: the box must not keep a search the list no longer applies.
    await openFromNavigation(page, 'Emails', 'Emails');
    await eventually(async () => expect(await page.getByRole('table', { name: 'Sent emails' }).getByRole('row').count()).toBe(21));
    await expect(page.getByLabel('Recipient').inputValue()).resolves.toBe('');
    // Back in history to the search: the box shows it again.
    await page.goBack();
    await eventually(async () => expect(await page.getByLabel('Recipient').inputValue()).toBe('user3@example.net'));
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  test('when an owner disables a webhook from the keyboard and then switches project on its page, then focus stays on the button and the other project shows its own webhooks', async () => {
    const { context, page, owner, pageErrors } = await newOwner();
    const created = await owner.post('/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['email.delivered'] });
    expect(created.status).toBe(201);
    await openFromNavigation(page, 'Webhooks', 'Webhooks');
    await page.getByRole('link', { name: 'http://127.0.0.1:9/hooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    await page.getByRole('button', { name: 'Disable' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    await page.getByText('disabled (manual)').waitFor();
    expect(await focused(page)).toBe('Enable');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    expect(await focused(page)).toBe('Disable');

    const second = await owner.post('/projects', { name: 'Second shop' });
    expect(second.status).toBe(201);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    const switcher = page.getByRole('combobox', { name: 'Project' });
    await eventually(async () => expect(await switcher.locator('option').allTextContents()).toContain('Second shop'));
    await switcher.selectOption({ label: 'Second shop' });
    // The webhook belongs to the project left: the switch goes to the list of the one chosen.
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    expect(page.url()).toBe(`${stack.url}/dashboard/webhooks`);
    await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
  test('when a keyboard user cancels and then confirms revoking a key, then focus returns to the button, and once the key’s row is gone it lands on the main content', async () => {
    const { context, page, owner, pageErrors } = await newOwner();
    for (const name of ['build', 'deploy']) expect((await owner.post('/api-keys', { name })).status).toBe(201);
    await openFromNavigation(page, 'API keys', 'API keys');
    const revoke = page.getByRole('button', { name: 'Revoke key deploy' });
    await revoke.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Revoke the key “deploy”?' });
    await dialog.waitFor();
    expect(await focused(page)).toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => expect(await focused(page)).toBe('Revoke'));

    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Revoke key');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await revoke.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Revoke key build' }).waitFor();
    // Not the document's start: the next Tab goes on from the page's content.
    await eventually(async () => expect(await page.evaluate<string>('document.activeElement?.id')).toBe('main'));
    const keys = await owner.get('/api-keys');
    const names = keys.body.data.map((k: { name: string }) => k.name);
    expect(names).toContain('build');
    expect(names).not.toContain('deploy');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
