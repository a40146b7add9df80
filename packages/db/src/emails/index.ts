export * from './event-outbox';
export * from './recipient-outcome';
