export * from './find-emails-by-recipient';
export * from './event-data';
export * from './insert-emails';
export * from './record-outcomes';
export * from './record-engagement';
export * from './read-link-clicks';
export * from './delete-expired-emails';
