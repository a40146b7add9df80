export * from './attempt-delivery';
export * from './request-recovery';
export * from './resolve-public-host';
export * from './sign-webhook';
export * from './webhook-client';
export * from './webhook-deliverer';
export type { WebhookAttempt } from '@mailroom/db';
export { WebhookQueue } from '@mailroom/core';
