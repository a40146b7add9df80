export * from './metrics';
export * from './ops-server';
export * from './readiness';
