/** A failure the CLI reports as its message alone, without a stack trace. */
export class MigrateError extends Error {
  override readonly name = 'MigrateError';
}
