/**
 * A small browser harness for the management pages' tests, written while the shell's shared
 * harness (test/dashboard/support, by dash-core) had not landed: the real gateway, sender and
 * webhook dispatcher in-process on a fresh database, real Chromium through playwright-core, and
 * screenshots plus an axe-core check of a page. To be folded into the shared harness.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { loadConfig } from '@mailroom/core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { startSender, type RunningSender } from '../../services/sender/src/start-sender';
import { type RunningDispatcher, startDispatcher } from '../../services/webhook-dispatcher/src/start-dispatcher';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { DnsServer } from '../support/dns-server';
import { startTestGateway, testEnv, type TestGateway } from '../support/gateway';

const ROOT = join(__dirname, '../..');
/** Where screenshots go (named in the README's Dashboard section). */
export const SCREENSHOT_DIR = join(ROOT, 'test-results/dashboard');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface DashboardStack {
  t: TestGateway;
  /** The gateway's origin; the dashboard is at `${url}/dashboard`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Builds the dashboard (so the test sees the sources as they are), then starts the gateway, the
 * sender and the webhook dispatcher on one fresh database. Webhook retries are an hour apart, so
 * only what the test does (replay, test) delivers again; DNS questions go to an empty local
 * server, so a new domain stays pending without leaving the machine.
 */
export async function startDashboardStack(label: string): Promise<DashboardStack> {
  execFileSync('pnpm', ['--filter', '@mailroom/dashboard', 'build'], { cwd: ROOT, stdio: 'ignore' });
  const dns = await new DnsServer({}).start();
  const database: TestDatabase = await createTestDatabase(label);
  const env = testEnv(database, {
    ALLOW_SIGNUP: 'true',
    ALLOW_PRIVATE_NETWORKS: 'true',
    DNS_SERVERS: dns.address,
    WEBHOOK_RETRY_SCHEDULE: '3600',
    WEBHOOK_TIMEOUT_SECONDS: '5',
  });
  const t = await startTestGateway({ database, env });
  const config = loadConfig(env);
  const sender: RunningSender = await startSender(config);
  const dispatcher: RunningDispatcher = await startDispatcher(config);
  return {
    t,
    url: t.gateway.url,
    async close() {
      await dispatcher.stop();
      await sender.stop();
      await t.close();
      await database.drop();
      await dns.stop();
    },
  };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A fresh tab (its own sessionStorage) at 1280 px. */
export async function newTab(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return context.newPage();
}

/** Signs up through the dashboard's form and waits for the signed-in layout. */
export async function signUpInBrowser(page: Page, stack: DashboardStack, email: string, password: string): Promise<void> {
  await page.goto(`${stack.url}/dashboard/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Project name').fill('Acme');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Signs in through the dashboard's form and waits for the signed-in layout. */
export async function signInInBrowser(page: Page, stack: DashboardStack, email: string, password: string): Promise<void> {
  await page.goto(`${stack.url}/dashboard/signin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Goes to a dashboard path through the navigation's link (an in-app navigation, as a person would). */
export async function openFromNavigation(page: Page, label: string, heading: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** The serious or critical axe-core violations on the page, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Screenshots of the page as it is at 1280 px and at 390 px (`<name>-1280.png`, `<name>-390.png`)
 * and the axe-core check at both widths; answers the violations found (none expected).
 */
export async function checkPage(page: Page, name: string): Promise<string[]> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const violations: string[] = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
    violations.push(...(await seriousViolations(page)).map((v) => `${width} px: ${v}`));
    // Nothing may overflow sideways at phone width (tables scroll inside their own box).
    if (width === 390) {
      // A string, so this Node-typed file needs no DOM types.
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      if (overflow > 0) violations.push(`390 px: the page is ${overflow} px wider than the screen`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return violations;
}
