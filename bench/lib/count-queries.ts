/**
 * Diagnostic preload (BENCH_COUNT_QUERIES=1): counts the SQL statements a Mailroom child sends
 * through `pg`, by statement text, and writes them to bench/results/queries-<name>-<pid>.json
 * when the process exits. Loaded with `--import` after tsx; changes nothing else.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

interface PgClientPrototype {
  query(this: unknown, ...args: unknown[]): unknown;
}

const root = path.resolve(__dirname, '..', '..');
// The pg that @mailroom/db (and its Prisma adapter) load.
const pg = createRequire(path.join(root, 'packages', 'db', 'package.json'))('pg') as { Client: { prototype: PgClientPrototype } };
const counts = new Map<string, number>();
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
  const first = args[0] as string | { text?: string } | undefined;
  const text = typeof first === 'string' ? first : (first?.text ?? '(unknown)');
  const key = text.replace(/\s+/g, ' ').slice(0, 160);
  counts.set(key, (counts.get(key) ?? 0) + 1);
  return original.apply(this, args);
};

process.on('exit', () => {
  const name = process.env.BENCH_CHILD_NAME ?? 'child';
  const sorted = Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
  writeFileSync(path.join(root, 'bench', 'results', `queries-${name}-${process.pid}.json`), `${JSON.stringify(sorted, null, 2)}\n`);
});
