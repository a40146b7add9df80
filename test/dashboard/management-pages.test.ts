import type { Browser, Page } from 'playwright-core';
import { type RunningDispatcher, startDispatcher } from '../../services/webhook-dispatcher/src/start-dispatcher';
import { Receiver, until } from '../../services/webhook-dispatcher/test/support';
import { DnsServer } from '../support/dns-server';
import { apiClient } from '../support/http';
import { checkPage, newDashboardContext, launchBrowser, sessionOf, signUpInBrowser, TEST_PASSWORD } from './support/browser';
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
