import type { OperationExample } from './examples';

const WEBHOOK_ID = 'wh_01KAQ9B1C2D3E4F5G6H7J8K9M0';
const ROUTE_ID = 'rt_01KAQ7D1E2F3G4H5J6K7M8N9P0';
const EVENT_ID = 'evt_01KAQ9A1B2C3D4E5F6G7H8J9K0';
const CREATED = '2026-11-21T10:00:00.000Z';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/1WMk8QzTrk=';

const webhook = {
  object: 'webhook',
  id: WEBHOOK_ID,
  url: 'https://app.acme.example/hooks/mailroom',
  events: ['email.delivered', 'email.bounced', 'email.complained'],
  routeId: null,
  description: 'Delivery outcomes for the CRM',
  enabled: true,
  disabledReason: null,
  createdAt: CREATED,
};

const failedAttempt = {
  object: 'webhook_attempt',
  id: 'wha_01KAQ9C1D2E3F4G5H6J7K8M9N0',
  eventId: EVENT_ID,
  eventType: 'email.bounced',
  attempt: 2,
  trigger: 'scheduled',
  url: webhook.url,
  responseStatus: 500,
  responseBody: '{"error":"database unavailable"}',
  durationMs: 231,
  error: 'HTTP 500',
  success: false,
  createdAt: '2026-11-21T10:05:05.000Z',
  nextRetryAt: '2026-11-21T10:35:05.000Z',
};

const manualAttempt = {
  ...failedAttempt,
  id: 'wha_01KAQ9D1E2F3G4H5J6K7M8N9P0',
  attempt: 3,
  trigger: 'manual',
  responseStatus: 200,
  responseBody: 'ok',
  durationMs: 87,
  error: null,
  success: true,
  createdAt: '2026-11-21T10:20:00.000Z',
  nextRetryAt: null,
};

/** Examples of the webhook operations, merged into OPERATION_EXAMPLES. */
export const WEBHOOK_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  createWebhook: {
    request: { url: webhook.url, events: webhook.events, description: webhook.description },
    response: { ...webhook, secret: SECRET },
  },
  listWebhooks: {
    query: { limit: '20' },
    response: {
      object: 'list',
      data: [webhook, { ...webhook, id: 'wh_01KAQ9A0B1C2D3E4F5G6H7J8K9', url: 'https://app.acme.example/hooks/inbound', events: ['email.received'], routeId: ROUTE_ID, description: null }],
      hasMore: false,
    },
  },
  getWebhook: { params: { id: WEBHOOK_ID }, response: webhook },
  updateWebhook: {
    params: { id: WEBHOOK_ID },
    request: { enabled: false },
    response: { ...webhook, enabled: false, disabledReason: 'manual' },
  },
  deleteWebhook: { params: { id: WEBHOOK_ID }, response: { object: 'webhook', id: WEBHOOK_ID, deleted: true } },
  rotateWebhookSecret: { params: { id: WEBHOOK_ID }, response: { ...webhook, secret: 'whsec_3q2+7zq0VvQmE4xJd8n1pYk5tL6wR9sA0bC1dE2fG3h=' } },
  testWebhook: {
    params: { id: WEBHOOK_ID },
    response: { ...manualAttempt, id: 'wha_01KAQ9E1F2G3H4J5K6M7N8P9Q0', eventId: 'evt_01KAQ9E0F1G2H3J4K5M6N7P8Q9', eventType: 'webhook.test', attempt: 1 },
  },
  listWebhookAttempts: {
    params: { id: WEBHOOK_ID },
    query: { limit: '20', eventId: EVENT_ID },
    // The replay at 10:20 succeeded, so the retry due at 10:35 will not be made: no longer named.
    response: { object: 'list', data: [manualAttempt, { ...failedAttempt, nextRetryAt: null }, { ...failedAttempt, id: 'wha_01KAQ9B0C1D2E3F4G5H6J7K8M9', attempt: 1, createdAt: '2026-11-21T10:05:00.000Z', nextRetryAt: '2026-11-21T10:05:05.000Z' }], hasMore: false },
  },
  replayWebhook: { params: { id: WEBHOOK_ID }, response: manualAttempt },
  recoverWebhook: {
    params: { id: WEBHOOK_ID },
    request: { since: '2026-11-20T08:00:00Z' },
    response: { object: 'webhook_recovery', webhookId: WEBHOOK_ID, since: '2026-11-20T08:00:00.000Z', events: 12 },
  },
};
