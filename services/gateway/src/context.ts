import type { Config, Logger, Redis, SendQueue } from '@mailroom/core';
import type { Database, MigrationCheck, Pool } from '@mailroom/db';
import type { ApiTokenVerifier } from './auth/api-tokens';
import type { SessionTokens } from './auth/session-tokens';
import type { DomainServices } from './features/domains/manage-domains';
import type { VerifiedDomainsCache } from './features/domains/verified-domains-cache';
import type { AcceptBatcher } from './features/emails/accept-batcher';
import type { WebhookDeliveryDeps } from './features/webhooks/deliver-now';
import type { WebhookEndpointDeps } from './features/webhooks/manage-webhooks';
import type { Metrics } from './metrics';
import type { RateLimits } from './http/rate-limit';

/** Everything a request handler may use. Built once in start-gateway.ts and passed down. */
export interface GatewayContext {
  config: Readonly<Config>;
  db: Database;
  /** Plain pg pool for the send hot path. */
  pool: Pool;
  /** Fails fast when Redis is down, so requests answer 503 rather than hang. */
  redis: Redis;
  /** Readiness's schema check (the database has this version's migrations). */
  migrations: MigrationCheck;
  logger: Logger;
  /** Console session tokens: issued, verified and signed out. */
  sessions: SessionTokens;
  apiTokens: ApiTokenVerifier;
  rateLimits: RateLimits;
  /** Where accepted emails are handed to the sender. */
  sendQueue: SendQueue;
  /** Group commit of plain sends. */
  acceptBatcher: AcceptBatcher;
  metrics: Metrics;
  /** Sending domains: key sealing, DNS lookups, record settings, event notices. */
  domains: DomainServices;
  /** Whether from domains are verified, remembered for a second (every send asks). */
  verifiedDomains: VerifiedDomainsCache;
  /** What creating and changing webhook endpoints needs (the secret sub-key, the URL host check). */
  webhookEndpoints: WebhookEndpointDeps;
  /** Test, replay and recover: the deliverer (started and stopped with the gateway) and the dispatcher's queue. */
  webhookDeliveries: WebhookDeliveryDeps;
  /** True once shutdown has begun; /readyz then answers 503. */
  isShuttingDown(): boolean;
}
