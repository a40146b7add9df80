import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Frame, type Page } from 'playwright-core';
import type { ApiClient } from '../../support/http';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where each run writes the pages' screenshots (gitignored). */
export const SCREENSHOT_DIR = path.resolve(__dirname, '../../../test-results/dashboard');

// Headless, and nothing that reaches out to the network on its own (the machine has none).
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Chromium with a fresh profile (playwright makes a new user-data dir per launch). One per test file. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/** A new tab-set (its own sessionStorage) at desktop width, with every page error collected. */
export async function newDashboardContext(browser: Browser): Promise<{ context: BrowserContext; page: Page; pageErrors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // A step that cannot happen fails in seconds, naming what it waited for.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { context, page, pageErrors };
}

export const TEST_PASSWORD = 'correct horse battery';
let accounts = 0;

/** Signs a new person up through the dashboard's form; answers once the overview shows. */
export async function signUpInBrowser(page: Page, baseUrl: string, email = `dash${++accounts}-${Date.now()}@example.com`): Promise<{ email: string; password: string }> {
  await page.goto(`${baseUrl}/dashboard/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByLabel('Project name').fill('Acme');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return { email, password: TEST_PASSWORD };
}

/** The session the dashboard keeps for the tab, for driving the API as the same person. */
export async function sessionOf(page: Page): Promise<{ sessionToken: string; projectId: string }> {
  const raw = await page.evaluate<string | null>("sessionStorage.getItem('mailroom.session')");
  if (!raw) throw new Error('The tab has no session.');
  return JSON.parse(raw);
}

/** axe-core's own source: the very copy @axe-core/playwright would inject (its dependency, so the same version). */
const AXE_SOURCE: string = createRequire(require.resolve('@axe-core/playwright'))('axe-core').source;

/** What axe leaves out: an email's content, the sandboxed frames (see accessibilityViolations). */
const AXE_CONTEXT = { include: [], exclude: ['iframe[sandbox]'] };

/** Whether `frame` is an excluded sandboxed frame of `page`, or inside one. */
async function inExcludedFrame(page: Page, frame: Frame): Promise<boolean> {
  let topLevel = frame;
  for (let parent = frame.parentFrame(); parent && parent !== page.mainFrame(); parent = parent.parentFrame()) topLevel = parent;
  return (await (await topLevel.frameElement()).getAttribute('sandbox')) !== null;
}

/**
 * Serious and critical axe-core violations of the page as it is now, as readable lines. An
 * email's content (the sandboxed frames) is left out: it is the sender's markup, not ours, and
 * a frame where scripts may not run cannot host axe.
 *
 * axe-core runs as @axe-core/playwright's legacy mode runs it (`axe.run` in the page, which asks
 * each frame's own axe for that frame's part), with the same rules and context, but axe is put
 * into a document only once (it stays for the document's life, across widths and client-side
 * navigations; a new document gets it again) and never into the excluded frames. The default
 * mode's blank page per run and the source injected twice per run cost ~2 s a check here.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  for (const frame of page.frames()) {
    if (frame !== page.mainFrame() && (await inExcludedFrame(page, frame))) continue;
    if ((await frame.evaluate<string>('typeof window.axe')) !== 'object') await frame.evaluate(AXE_SOURCE);
  }
  type Violation = { id: string; impact?: string | null; help: string; nodes: Array<{ target: unknown[] }> };
  // axe.run answers a promise of its results; `window` is reached through globalThis (no DOM types here).
  const results = await page.evaluate<{ violations: Violation[] }, typeof AXE_CONTEXT>((context) => (globalThis as any).axe.run(context, {}), AXE_CONTEXT);
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Checks the page as it is now, at 1280 px and at 390 px wide: writes a full-page screenshot of
 * each to test-results/dashboard/<name>-<width>.png and answers the axe-core violations found at
 * either width (empty when there are none).
 */
export async function checkPage(page: Page, name: string): Promise<string[]> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const original = page.viewportSize() ?? { width: 1280, height: 900 };
  const violations: string[] = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
    for (const v of await accessibilityViolations(page)) violations.push(`${width} px: ${v}`);
  }
  await page.setViewportSize(original);
  return violations;
}

/** Retries `assertion` (which throws while it does not hold) until it passes or `timeoutMs` is over, then throws its last error. */
/** The project's one received email, once the MX has stored it and its processing has authenticated it. */
export function receivedOnce(api: ApiClient): Promise<{ id: string; [field: string]: unknown }> {
  return eventually(async () => {
    const list = await api.get('/emails/received');
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].authentication).not.toBeNull();
    return list.body.data[0];
  }, 20_000);
}

export async function eventually<T>(assertion: () => Promise<T> | T, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
