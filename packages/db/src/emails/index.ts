export * from './event-outbox';
export * from './insert-emails';
export * from './record-outcomes';
