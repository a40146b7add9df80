export * from './purge-expired-idempotency-keys';
