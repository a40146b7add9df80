export * from './read-stats';
export * from './roll-up-stats';
export * from './stat-types';
