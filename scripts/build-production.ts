/**
 * Builds Mailroom's production tree into an empty folder, the one the Dockerfile copies into the
 * image and test/deployment-production.test.ts starts every service from:
 *
 *   dist/<service>.js   one bundle per services/<name>/src/main.ts (our code only), and
 *   dist/migrate.js     the migration CLI (packages/db/src/cli.ts),
 *   node_modules/       the production dependencies of the lockfile, nothing else,
 *   prisma/             the schema and migrations the migration CLI applies,
 *   dashboard/          the web console's static build, which the gateway serves,
 *   bin/mailroom        the entry point: `bin/mailroom <service>` or `bin/mailroom migrate`.
 *
 * Usage: `pnpm build:production <empty or missing folder>` (after `pnpm install`, which generates
 * the Prisma client).
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { bundleServices } from './lib/production/bundle-services';
import { copyDashboard } from './lib/production/copy-dashboard';
import { discoverProductionEntries, HEALTHCHECK_ENTRY } from './lib/production/entries';
import { declaredDependencies, installProductionDependencies } from './lib/production/install-dependencies';
import { pruneUnreachable } from './lib/production/prune-unreachable';

const REPOSITORY_ROOT = path.resolve(__dirname, '..');

async function main(args: readonly string[]): Promise<void> {
  const [target, ...rest] = args;
  if (target === undefined || rest.length > 0) throw new Error('Usage: pnpm build:production <empty or missing folder>');
  const outDir = path.resolve(target);
  if (existsSync(outDir) && readdirSync(outDir).length > 0) throw new Error(`${outDir} is not empty; the production tree is built into an empty folder.`);
  if (!existsSync(path.join(REPOSITORY_ROOT, 'packages/db/src/generated'))) {
    throw new Error('The Prisma client is not generated; run `pnpm install` (its postinstall generates it) first.');
  }
  mkdirSync(outDir, { recursive: true });

  const entries = discoverProductionEntries(REPOSITORY_ROOT);
  const started = Date.now();
  await bundleServices({ repositoryRoot: REPOSITORY_ROOT, outDir, entries });
  console.log(`Bundled ${entries.map((e) => e.name).join(', ')} in ${Date.now() - started} ms.`);

  installProductionDependencies(REPOSITORY_ROOT, outDir);
  const removed = pruneUnreachable(outDir, declaredDependencies(REPOSITORY_ROOT));
  console.log(`Removed ${removed.length} packages no production code reaches (optional peers and theirs): ${removed.join(', ')}.`);

  cpSync(path.join(REPOSITORY_ROOT, 'prisma'), path.join(outDir, 'prisma'), { recursive: true });
  copyDashboard(REPOSITORY_ROOT, outDir);
  mkdirSync(path.join(outDir, 'bin'));
  cpSync(path.join(REPOSITORY_ROOT, 'scripts/production/mailroom.sh'), path.join(outDir, 'bin/mailroom'));
  chmodSync(path.join(outDir, 'bin/mailroom'), 0o755);
  const commands = [...entries.filter((e) => e.name !== HEALTHCHECK_ENTRY).map((e) => e.name)].join('|');
  console.log(`Production tree ready in ${outDir}: bin/mailroom <${commands}>.`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
