import type { Resolver } from 'node:dns/promises';
import { type Config, conflict, createResolver, deriveKey, type Logger, notFound } from '@mailroom/core';
import { createTestDelivery, findReplayTarget, type Pool, recordAttempts, recordReplay, type WebhookAttempt, withTryLock } from '@mailroom/db';
import { type AttemptDeps, attemptDelivery } from './attempt-delivery';
import { replayLock } from './request-recovery';
import { WebhookClient } from './webhook-client';

/** Manual deliveries, made synchronously for the gateway's replay and test endpoints. */
export interface WebhookDeliverer {
  start(): Promise<void>;
  /** Closes the connection pools; waits for posts in flight. */
  stop(): Promise<void>;
  /**
   * DESIGN §5 replay: a synchronous manual attempt of the event of the endpoint's most recent
   * failed attempt not since delivered; null when there is nothing to replay (or the endpoint
   * is not this project's). Cancels pending retries on success; works on a disabled endpoint
   * without re-enabling it. 409 `conflict` while another replay of the endpoint is in progress.
   */
  replay(projectId: string, webhookId: string): Promise<WebhookAttempt | null>;
  /**
   * Appends a `webhook.test` event (appendEvents, subject {kind:'webhook'}) and delivers it
   * now, once; returns the attempt. `not_found` when the endpoint is not this project's.
   */
  sendTest(projectId: string, webhookId: string): Promise<WebhookAttempt>;
}

export interface WebhookDelivererOptions {
  pool: Pool;
  /** The installation's master secret (SECRET_KEY); the secret sub-key is derived from it. */
  masterSecret: string;
  config: Readonly<Config>;
  logger: Logger;
  /** Default: `createResolver(config.dnsServers)`. */
  resolver?: Pick<Resolver, 'resolve4' | 'resolve6'>;
}

/**
 * How long a dispatcher's claim on a delivery lasts: LEASE_SECONDS, but never shorter than two
 * whole attempts (a claimed delivery may wait for the post before it, then make its own, each
 * within the timeout, then commit), so a slow answer is not posted twice.
 */
export function deliveryLeaseSeconds(config: Pick<Config, 'leaseSeconds' | 'webhookTimeoutSeconds'>): number {
  return Math.max(config.leaseSeconds, 2 * config.webhookTimeoutSeconds + 5);
}

/** The attempt dependencies every deliverer shares: the guarded client, the key, the schedule. */
export function createAttemptDeps(options: Omit<WebhookDelivererOptions, 'pool' | 'logger'>): AttemptDeps {
  const { config } = options;
  return {
    client: new WebhookClient({
      resolver: options.resolver ?? createResolver(config.dnsServers),
      allowPrivateNetworks: config.allowPrivateNetworks,
      timeoutSeconds: config.webhookTimeoutSeconds,
    }),
    encryptionKey: deriveKey(options.masterSecret, 'encryption'),
    secrets: new Map(),
    retrySchedule: config.webhookRetrySchedule,
  };
}

export function createWebhookDeliverer(options: WebhookDelivererOptions): WebhookDeliverer {
  const deps = createAttemptDeps(options);
  const logger = options.logger.child({ component: 'webhook-deliverer' });
  const { pool } = options;

  return {
    async start() {},
    stop: () => deps.client.close(),

    async replay(projectId, webhookId) {
      // One replay of an endpoint at a time, on every replica: two at once would both find the
      // same failed event and post it twice. The second is told so rather than kept waiting.
      const replayed = await withTryLock(pool, replayLock(webhookId), async () => {
        const target = await findReplayTarget(pool, projectId, webhookId);
        if (!target) return null;
        const record = await attemptDelivery(deps, target, { leased: false });
        const attempt = await recordReplay(pool, record);
        logger.info({ webhookId, eventId: target.eventId, success: record.success, status: record.responseStatus }, 'webhook replayed');
        return attempt;
      });
      if (!replayed.locked) throw conflict('A replay or recover of this endpoint is in progress; try again once it has answered.');
      return replayed.value;
    },

    async sendTest(projectId, webhookId) {
      const target = await createTestDelivery(pool, { projectId, webhookId, leaseSeconds: deliveryLeaseSeconds(options.config) });
      if (!target) throw notFound('webhook');
      const record = await attemptDelivery(deps, target, { leased: true });
      const [attempt] = await recordAttempts(pool, [record]);
      // Only an endpoint deleted during the post leaves no row to record against.
      if (!attempt) throw notFound('webhook');
      logger.info({ webhookId, eventId: target.eventId, success: record.success, status: record.responseStatus }, 'webhook test sent');
      return attempt;
    },
  };
}
