export * from './find-routes';
export * from './insert-received-emails';
