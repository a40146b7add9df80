import type { Browser } from 'playwright-core';
import { checkPage, launchBrowser, newDashboardContext, sessionOf, signUpInBrowser, TEST_PASSWORD } from './support/browser';
import { startDashboardStack, type DashboardStack } from './support/stack';

jest.setTimeout(60_000);

describe('the dashboard session', () => {
  let stack: DashboardStack;
  let browser: Browser;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startDashboardStack('dash_session'), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  test('when someone signs up, signs out and signs in again, then each step lands on the right page and the session lives in the tab only', async () => {
    const { context, page, pageErrors } = await newDashboardContext(browser);
    await page.goto(`${stack.url}/dashboard/signup`);
    expect(await checkPage(page, 'signup')).toEqual([]);
    const { email } = await signUpInBrowser(page, stack.url);
    expect(page.url()).toBe(`${stack.url}/dashboard/`);
    await expect(page.getByLabel('Project').inputValue()).resolves.toMatch(/^proj_/);
    // Kept for the tab: sessionStorage, and nothing in localStorage or cookies.
    expect((await sessionOf(page)).sessionToken).toBeTruthy();
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(await context.cookies()).toEqual([]);
    // Another tab has no session: it is sent to sign-in.
    const other = await context.newPage();
    await other.goto(`${stack.url}/dashboard/emails`);
    await other.getByRole('heading', { level: 1, name: 'Sign in to Mailroom' }).waitFor();
    await expect(other.getByRole('alert').textContent()).resolves.toContain('Sign in to see this page');

    const { sessionToken, projectId } = await sessionOf(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to Mailroom' }).waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('You are signed out');
    expect(await checkPage(page, 'signin')).toEqual([]);
    // Signing out revoked the token on the server, not only in the tab.
    const after = await stack.t.api.get('/projects', { session: sessionToken, project: projectId });
    expect(after.status).toBe(401);

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The API's own message for invalid_credentials.
    const failure = await stack.t.api.post('/auth/login', { email, password: 'wrong password' });
    await page.getByRole('alert').filter({ hasText: failure.body.message }).waitFor();
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  test('when the session is revoked behind the tab, then the next page returns to sign-in with a message', async () => {
    const { context, page } = await newDashboardContext(browser);
    await signUpInBrowser(page, stack.url);
    const { sessionToken, projectId } = await sessionOf(page);
    const revoked = await stack.t.api.post('/auth/logout', undefined, { session: sessionToken, project: projectId });
    expect(revoked.status).toBe(200);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Emails' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to Mailroom' }).waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/session has expired/);
    expect(await page.evaluate("sessionStorage.getItem('mailroom.session')")).toBeNull();
    await context.close();
  });
});
