export * from './append-events';
export * from './present-event';
export * from './read-outbox';
export * from './reconcile-outbox';
export * from './outbox-cursors';
export * from './delete-expired-events';
