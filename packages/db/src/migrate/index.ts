export { ensureDatabase } from './ensure-database';
export { MigrateError } from './errors';
export { migrateDatabase } from './migrate-database';
