export * from './connect-backends';
