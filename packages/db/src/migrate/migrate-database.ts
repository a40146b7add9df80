import { redactUrl } from '@mailroom/core';
import { ensureDatabase } from './ensure-database';
import { runCli } from './run-cli';

function lastLine(text: string): string {
  return text.trimEnd().split('\n').pop() ?? '';
}

function parseApplied(stdout: string): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(lastLine(stdout));
    const applied = (parsed as { applied?: unknown } | null)?.applied;
    if (Array.isArray(applied) && applied.every((name) => typeof name === 'string')) return applied;
  } catch {
    // Not JSON: reported below with the child's output.
  }
  return undefined;
}

/**
 * Creates the database if missing and applies every pending migration in prisma/migrations,
 * as `prisma migrate deploy` would. Works from any Node process: the wasm schema engine needs
 * node flags, so this runs the migration CLI as a child process. Resolves with the names of the
 * migrations applied (empty when the database was up to date); rejects with the CLI's message.
 */
export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const { code, stdout, stderr } = await runCli(['migrate', '--json'], databaseUrl);
  const where = redactUrl(databaseUrl);
  if (code !== 0) {
    throw new Error(`Migrating ${where} failed: ${stderr.trim() || `the migration CLI exited with code ${code}`}`);
  }
  const applied = parseApplied(stdout);
  if (!applied) {
    throw new Error(`Migrating ${where} printed no result line. stdout: ${stdout.trim()} stderr: ${stderr.trim()}`);
  }
  return applied;
}
