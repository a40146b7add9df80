import type { ComponentType } from 'preact';
import { ApiKeysPage } from './pages/api-keys.tsx';
import { DomainsPage } from './pages/domains.tsx';
import { EmailDetailPage } from './pages/email-detail.tsx';
import { EmailsPage } from './pages/emails.tsx';
import { MembersPage } from './pages/members.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { ReceivedDetailPage } from './pages/received-detail.tsx';
import { ReceivedPage } from './pages/received.tsx';
import { RoutesPage } from './pages/routes.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { SignInPage } from './pages/signin.tsx';
import { SignUpPage } from './pages/signup.tsx';
import { SuppressionsPage } from './pages/suppressions.tsx';
import { WebhookDetailPage } from './pages/webhook-detail.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';

/** What every page component receives: the `:name` parameters of its path. */
export interface PageProps {
  params: Record<string, string>;
}

export interface RouteDefinition {
  /** A dashboard path (under /dashboard), with `:name` parameters. */
  path: string;
  page: ComponentType<PageProps>;
  /** Pages for people who are signed out (sign-in, sign-up); every other page needs a session. */
  public?: boolean;
}

/** Every page of the dashboard, by path; the first match wins. */
export const ROUTES: readonly RouteDefinition[] = [
  { path: '/signin', page: SignInPage, public: true },
  { path: '/signup', page: SignUpPage, public: true },
  { path: '/', page: OverviewPage },
  { path: '/emails', page: EmailsPage },
  { path: '/emails/:id', page: EmailDetailPage },
  { path: '/received', page: ReceivedPage },
  { path: '/received/:id', page: ReceivedDetailPage },
  { path: '/webhooks', page: WebhooksPage },
  { path: '/webhooks/:id', page: WebhookDetailPage },
  { path: '/domains', page: DomainsPage },
  { path: '/routes', page: RoutesPage },
  { path: '/api-keys', page: ApiKeysPage },
  { path: '/suppressions', page: SuppressionsPage },
  { path: '/settings', page: SettingsPage },
  { path: '/members', page: MembersPage },
];

/** The navigation's links, in order. */
export const NAVIGATION: readonly { path: string; label: string }[] = [
  { path: '/', label: 'Overview' },
  { path: '/emails', label: 'Emails' },
  { path: '/received', label: 'Received' },
  { path: '/webhooks', label: 'Webhooks' },
  { path: '/domains', label: 'Domains' },
  { path: '/routes', label: 'Routes' },
  { path: '/api-keys', label: 'API keys' },
  { path: '/suppressions', label: 'Suppressions' },
  { path: '/settings', label: 'Settings' },
  { path: '/members', label: 'Members' },
];
