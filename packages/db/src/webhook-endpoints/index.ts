export * from './webhook-secret';
export * from './webhook-rows';
export * from './webhook-attempts';
