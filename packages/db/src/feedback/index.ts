export * from './assign-project';
export * from './find-sent-email';
