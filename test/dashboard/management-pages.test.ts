import type { Browser, Page } from 'playwright-core';
import { type RunningDispatcher, startDispatcher } from '../../services/webhook-dispatcher/src/start-dispatcher';
import { Receiver, until } from '../../services/webhook-dispatcher/test/support';
import { DnsServer } from '../support/dns-server';
import { apiClient } from '../support/http';
import { publish } from '../support/published-records';
import { checkPage, launchBrowser, newDashboardContext, sessionOf, signUpInBrowser, TEST_PASSWORD } from './support/browser';
import { apiAsPage, type DashboardStack, startDashboardStack } from './support/stack';

// Real Chromium against the real gateway, sender and webhook dispatcher.
jest.setTimeout(180_000);

const OWNER = `owner-${Date.now()}@example.com`;
const MEMBER = `member-${Date.now()}@example.com`;

/** Goes to a page through the navigation's link, as a person would, and waits for its heading. */
async function openFromNavigation(page: Page, label: string, heading: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** Screenshots and axe-core at 1280 and 390 px (the shared checkPage), and nothing wider than a 390 px screen. */
async function checkPageClean(page: Page, name: string): Promise<void> {
  expect(await checkPage(page, name)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 900 });
  // A string, so this Node-typed file needs no DOM types.
  expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('dashboard management pages in a real browser', () => {
  let stack: DashboardStack;
  let dispatcher: RunningDispatcher;
  let browser: Browser;
  let owner: Page;
  const pageErrors: string[] = [];
  const receiver = new Receiver();
  // DNS questions go to an empty local server: a new domain stays pending without leaving the machine.
  const dns = new DnsServer({});

  beforeAll(async () => {
    await Promise.all([receiver.start(), dns.start()]);
    // Webhook retries an hour apart: only what the test does (replay, test) delivers again.
    const env = { ALLOW_PRIVATE_NETWORKS: 'true', DNS_SERVERS: dns.address, WEBHOOK_RETRY_SCHEDULE: '3600', WEBHOOK_TIMEOUT_SECONDS: '5' };
    [stack, browser] = await Promise.all([startDashboardStack('dash_pages', env), launchBrowser()]);
    dispatcher = await startDispatcher(stack.t.config);
    const tab = await newDashboardContext(browser);
    owner = tab.page;
    owner.on('pageerror', (error) => pageErrors.push(error.message));
    await signUpInBrowser(owner, stack.url, OWNER);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await dispatcher?.stop();
    await stack?.close();
    await receiver.stop();
    await dns.stop();
  });
  afterEach(() => expect(pageErrors).toEqual([]));

  /** The API as the person signed in to the tab, in the tab's project. */
  async function sessionApi(page: Page) {
    const session = await sessionOf(page);
    return Object.assign(await apiAsPage(stack, session), { projectId: session.projectId });
  }

  /** Creates a key on the API keys page and answers the token it shows once. */
  async function createKeyInBrowser(page: Page, name: string): Promise<string> {
    await openFromNavigation(page, 'API keys', 'API keys');
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = (await page.getByTestId('shown-once-value').textContent()) ?? '';
    expect(token).toMatch(/^mr_/);
    // The first-email command carries the token, ready to paste.
    expect(await page.locator('.shown-once pre').textContent()).toContain(`Bearer ${token}`);
    await page.getByRole('row').filter({ hasText: name }).waitFor();
    return token;
  }

  /** Revokes a key through its confirmation dialog; answers what the API then says to the token. */
  async function revokeKeyInBrowser(page: Page, name: string, token: string) {
    await openFromNavigation(page, 'API keys', 'API keys');
    await page.getByRole('button', { name: `Revoke key ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Revoke the key “${name}”?` });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: `Revoke key ${name}` }).waitFor({ state: 'detached' });
    return apiClient(stack.url, { token }).get('/emails');
  }

  test('when an owner creates a key, sends with it, follows a failing webhook, replays it and revokes the key, then each step shows in the pages', async () => {
    const page = owner;
    const token = await createKeyInBrowser(page, 'ci');
    await checkPageClean(page, 'api-keys-token-shown');
    // Shown once: after a reload, only the token's first characters remain.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    expect(await page.content()).not.toContain(token);

    // The receiver refuses the first delivery with a body that looks like markup, then accepts.
    receiver.answer = () =>
      receiver.requests.length === 1 ? { status: 500, body: '<b id="injected">not yet</b>' } : { status: 200, body: 'ok' };
    await openFromNavigation(page, 'Webhooks', 'Webhooks');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    for (const type of ['email.bounced', 'email.complained']) await page.getByRole('checkbox', { name: type }).uncheck();
    await page.getByRole('checkbox', { name: 'email.delivered' }).check();
    await page.getByLabel('Description').fill('Orders service');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = (await page.getByTestId('shown-once-value').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await checkPageClean(page, 'webhooks-secret-shown');

    const sent = await apiClient(stack.url, { token }).post('/emails', { from: 'app@acme.example', to: 'delivered@sandbox.mailroom.test', subject: 'Order 1', text: 'Thanks' });
    expect(sent.status).toBe(200);
    await until(() => receiver.requests.length >= 1, 30_000, 'the first delivery');

    await page.getByRole('link', { name: receiver.url }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook' }).waitFor();
    const attempts = page.getByRole('table', { name: 'Delivery attempts' });
    await until(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await attempts.getByRole('row').filter({ hasText: '500' }).count()) === 1;
    }, 30_000, 'the failed attempt in the log');
    const failed = attempts.getByRole('row').filter({ hasText: '500' });
    expect(await failed.textContent()).toContain('email.delivered');
    expect(await failed.textContent()).toContain('failed');
    // The endpoint's answer is text, never markup.
    expect(await failed.locator('pre').textContent()).toBe('<b id="injected">not yet</b>');
    expect(await page.locator('#injected').count()).toBe(0);
    await checkPageClean(page, 'webhook-detail');

    // The failed filter keeps only the failure.
    await page.getByLabel('Outcome').selectOption('false');
    await page.getByRole('button', { name: 'Filter' }).click();
    await until(async () => (await attempts.getByRole('row').count()) === 2, 10_000, 'the filtered log');

    await page.getByRole('button', { name: 'Replay last failed' }).click();
    await page.getByText('Replay of email.delivered: Delivered: HTTP 200').waitFor();
    await page.getByLabel('Outcome').selectOption('true');
    await page.getByRole('button', { name: 'Filter' }).click();
    await until(async () => (await attempts.getByRole('row').filter({ hasText: '(manual)' }).count()) === 1, 10_000, 'the replayed attempt');
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]?.headers['webhook-id']).toBe(receiver.requests[0]?.headers['webhook-id']);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event: Delivered: HTTP 200').waitFor();
    expect(receiver.requests.at(-1)?.headers['x-service-event-type']).toBe('webhook.test');

    // Nothing failed since an hour ago is left undelivered: the replay delivered it.
    await page.getByRole('button', { name: 'Recover since' }).click();
    await page.getByText(/^0 events since .* marked for re-delivery\.$/).waitFor();

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    expect(await page.locator('.details').textContent()).toContain('disabled');
    expect((await apiClient(stack.url, { token }).get(`/webhooks/${page.url().split('/').at(-1)}`)).body.enabled).toBe(false);

    const revoked = await revokeKeyInBrowser(page, 'ci', token);
    expect(revoked.status).toBe(403);
    expect(revoked.body.name).toBe('invalid_api_key');
  });

  test('when the owner manages domains, routes, suppressions and settings, the API holds the changes', async () => {
    const page = owner;
    await openFromNavigation(page, 'Domains', 'Domains');
    await page.getByText('No domains yet').waitFor();
    await checkPageClean(page, 'domains-empty');
    await page.getByLabel('Domain name').fill('acme.example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const card = page.getByRole('region', { name: /acme\.example/ });
    await card.waitFor();
    const records = card.getByRole('listitem');
    expect(await records.count()).toBeGreaterThan(3);
    // Each record: its status, and a copy button for its name and for its value.
    for (const button of ['Copy name', 'Copy value']) expect(await card.getByRole('button', { name: button }).count()).toBe(await records.count());
    expect(await records.filter({ hasText: 'pending' }).count()).toBe(await records.count());
    // The DKIM record published with a key type that is not RSA: the card says why it failed.
    const [added] = (await (await sessionApi(page)).get('/domains')).body.data;
    const dkim = added.records.find((r: { record: string }) => r.record === 'dkim');
    const wrongKeyType = (text: string) => text.replace('k=rsa', 'k=dsa');
    dns.setZone(publish([{ ...dkim, value: wrongKeyType(dkim.value), splitValue: dkim.splitValue && wrongKeyType(dkim.splitValue) }]));
    await page.getByRole('button', { name: 'Verify now: acme.example' }).click();
    await card.getByText(/Last checked (?!—)/).waitFor();
    await records.filter({ hasText: 'DKIM' }).getByText(/k= is dsa/).first().waitFor();
    await checkPageClean(page, 'domains');

    await openFromNavigation(page, 'Routes', 'Routes');
    // A refusal shows the API's own message (the contract's `message`), not a generic one.
    await page.getByLabel('Match').fill('not an address');
    await page.getByRole('button', { name: 'Create route' }).click();
    const owned = await sessionApi(page);
    const expected = await owned.post('/routes', { match: 'not an address' });
    expect(expected.status).toBe(422);
    await page.getByRole('alert').filter({ hasText: expected.body.message }).waitFor();
    await page.getByLabel('Match').fill('support@acme.example');
    await page.getByLabel('Name', { exact: true }).fill('Support');
    await page.getByRole('button', { name: 'Create route' }).click();
    await page.getByRole('button', { name: 'Edit route support@acme.example' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Help desk');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'Help desk' }).waitFor();
    await checkPageClean(page, 'routes');
    await page.getByRole('button', { name: 'Delete route support@acme.example' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete route' }).click();
    await page.getByText('No routes yet').waitFor();

    await openFromNavigation(page, 'Suppressions', 'Suppressions');
    await page.getByText('No suppressed recipients').waitFor();
    await checkPageClean(page, 'suppressions');

    await openFromNavigation(page, 'Settings', 'Project settings');
    await page.getByLabel('Name', { exact: true }).fill('Acme shop');
    await page.getByRole('checkbox', { name: /Track opens/ }).check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    // The switcher shows the new name at once.
    expect(await page.getByLabel('Project').locator('option:checked').textContent()).toBe('Acme shop');
    await checkPageClean(page, 'settings');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Project settings' }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Acme shop');
    expect(await page.getByRole('checkbox', { name: /Track opens/ }).isChecked()).toBe(true);
  });

  test('when a member who is not an owner uses the dashboard, the owner-only members management is refused and the rest works', async () => {
    const signup = await apiClient(stack.url).post('/auth/signup', { email: MEMBER, password: TEST_PASSWORD, projectName: 'Own' });
    expect(signup.status).toBe(201);
    await openFromNavigation(owner, 'Members', 'Members');
    await owner.getByLabel('Email').fill(MEMBER);
    await owner.getByRole('button', { name: 'Add member' }).click();
    await owner.getByRole('button', { name: `Remove ${MEMBER}` }).waitFor();
    // Roles: promoted and demoted again from the page; demoting the last owner shows the API's refusal.
    const ownerApi = await sessionApi(owner);
    const roleOf = async (email: string) => {
      const list = await ownerApi.get(`/projects/${ownerApi.projectId}/members`);
      return list.body.data.find((m: { email: string }) => m.email === email)?.role;
    };
    await owner.getByLabel(`Role of ${MEMBER}`).selectOption('owner');
    await until(async () => (await roleOf(MEMBER)) === 'owner', 10_000, 'the member promoted');
    await owner.getByLabel(`Role of ${MEMBER}`).selectOption('member');
    await until(async () => (await roleOf(MEMBER)) === 'member', 10_000, 'the member demoted');
    await owner.getByLabel(`Role of ${OWNER}`).selectOption('member');
    await owner.getByText('The last owner of a project cannot be demoted.').waitFor();
    expect(await owner.getByLabel(`Role of ${OWNER}`).inputValue()).toBe('owner');
    expect(await roleOf(OWNER)).toBe('owner');
    await checkPageClean(owner, 'members-owner');

    const { page: member } = await newDashboardContext(browser);
    member.on('pageerror', (error) => pageErrors.push(error.message));
    await member.goto(`${stack.url}/dashboard/signin`);
    await member.getByLabel('Email').fill(MEMBER);
    await member.getByLabel('Password').fill(TEST_PASSWORD);
    await member.getByRole('button', { name: 'Sign in' }).click();
    await member.getByRole('button', { name: 'Sign out' }).waitFor();
    await member.getByLabel('Project').selectOption((await sessionApi(owner)).projectId);
    await openFromNavigation(member, 'Members', 'Members');
    await member.getByRole('cell', { name: `${MEMBER} (you)` }).waitFor();
    await member.getByText("Only the project's owners can add or remove members or change their roles.").waitFor();
    expect(await member.getByRole('combobox', { name: /^Role of / }).count()).toBe(0);
    expect(await member.getByRole('button', { name: 'Add member' }).count()).toBe(0);
    expect(await member.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    await checkPageClean(member, 'members-not-owner');
    // The API refuses the member what the page does not offer.
    const asMember = await sessionApi(member);
    const refused = await asMember.post(`/projects/${asMember.projectId}/members`, { email: OWNER, role: 'member' });
    expect(refused.status).toBe(403);

    // The same key flow works for a member: created, shown once, revoked, refused.
    const token = await createKeyInBrowser(member, 'member key');
    const revoked = await revokeKeyInBrowser(member, 'member key', token);
    expect(revoked.status).toBe(403);
    await openFromNavigation(member, 'Webhooks', 'Webhooks');
    await member.getByRole('link', { name: receiver.url }).waitFor();
    await checkPageClean(member, 'webhooks');
  });
});
