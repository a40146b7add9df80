export * from './connect-backends';
export * from './migration-check';
