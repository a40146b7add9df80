import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const readManifest = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;

/** What a package needs at run time: its dependencies, optional ones, and the peers it does not mark optional. */
function runtimeNeeds(manifest: Manifest): string[] {
  const peers = Object.keys(manifest.peerDependencies ?? {}).filter((name) => !manifest.peerDependenciesMeta?.[name]?.optional);
  return [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {}), ...peers];
}

/** Where Node finds `name` from `fromDir`: the nearest node_modules/<name> up to `root`. */
function locate(name: string, fromDir: string, root: string): string | undefined {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dir === root || dir === path.dirname(dir)) return undefined;
  }
}

/**
 * Removes from `<outDir>/node_modules` every top-level package that no production dependency of
 * the workspace reaches. The lockfile resolves optional peers too (Prisma's client names the
 * `prisma` CLI and `typescript` as optional peers, and that CLI brings Prisma Studio and its
 * React), and an install cannot leave them out without a lockfile of its own; none of them is
 * loaded at run time. Returns the names removed.
 */
export function pruneUnreachable(outDir: string, roots: readonly string[]): string[] {
  const modules = path.join(outDir, 'node_modules');
  const reached = new Set<string>();
  const queue: { name: string; from: string }[] = roots.map((name) => ({ name, from: outDir }));
  for (let item = queue.shift(); item; item = queue.shift()) {
    const dir = locate(item.name, item.from, outDir);
    if (dir === undefined) {
      // An optional dependency for another platform is legitimately absent.
      continue;
    }
    if (reached.has(dir)) continue;
    reached.add(dir);
    for (const name of runtimeNeeds(readManifest(dir))) queue.push({ name, from: dir });
  }
  const removed: string[] = [];
  const topLevel = readdirSync(modules).flatMap((entry) =>
    entry.startsWith('@') ? readdirSync(path.join(modules, entry)).map((name) => `${entry}/${name}`) : entry.startsWith('.') ? [] : [entry],
  );
  for (const name of topLevel) {
    if (reached.has(realpathSync(path.join(modules, name)))) continue;
    rmSync(path.join(modules, name), { recursive: true, force: true });
    removed.push(name);
  }
  for (const entry of readdirSync(modules).filter((e) => e.startsWith('@'))) {
    if (readdirSync(path.join(modules, entry)).length === 0) rmSync(path.join(modules, entry), { recursive: true });
  }
  // Links to the removed packages' commands; nothing at run time uses them.
  rmSync(path.join(modules, '.bin'), { recursive: true, force: true });
  return removed;
}
