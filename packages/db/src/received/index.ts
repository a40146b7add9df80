export * from './read-received-emails';
export * from './read-received-content';
