/** PostgreSQL's SQLSTATE codes that Mailroom maps to answers, in one place. */
const FOREIGN_KEY_VIOLATION = '23503';
const UNIQUE_VIOLATION = '23505';

const sqlState = (err: unknown): string | undefined => {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
};

/** A row named by a foreign key was missing (deleted meanwhile, or never there). */
export const isForeignKeyViolation = (err: unknown): boolean => sqlState(err) === FOREIGN_KEY_VIOLATION;

/** A unique index already held the value: a concurrent or earlier insert won. */
export const isUniqueViolation = (err: unknown): boolean => sqlState(err) === UNIQUE_VIOLATION;
