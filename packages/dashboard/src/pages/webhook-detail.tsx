import { placeholderPage } from '../components/placeholder-page.tsx';

/** Placeholder: built on the dashboard's kit (see packages/dashboard/README.md). */
export const WebhookDetailPage = placeholderPage('Webhook', '/webhooks/{id}');
