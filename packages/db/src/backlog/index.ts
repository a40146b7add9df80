export * from './due-work';
