export * from './delete-expired';
export * from './load-received';
export * from './received-event-id';
export * from './record-failure';
export * from './store-processed';
