export * from './metrics';
export * from './ops-server';
export * from './readiness';
export * from './backlog-metrics';
export * from './worker-metrics';
export * from './request-path';
export * from './client-error';
export * from './client-address';
