export * from './project-routes';
