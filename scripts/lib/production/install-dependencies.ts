import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

/** The workspace's package folders (`packages/*`, `services/*`, as pnpm-workspace.yaml lists them). */
/** The production dependencies the workspace's packages declare, other than each other. */
export function declaredDependencies(repositoryRoot: string): string[] {
  const names = new Set<string>();
  for (const dir of workspacePackageDirs(repositoryRoot)) {
    const manifest = JSON.parse(readFileSync(path.join(repositoryRoot, dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const [name, version] of Object.entries(manifest.dependencies ?? {})) if (!version.startsWith('workspace:')) names.add(name);
  }
  return [...names].sort();
}

export function workspacePackageDirs(repositoryRoot: string): string[] {
  const dirs: string[] = [];
  for (const group of ['packages', 'services']) {
    const parent = path.join(repositoryRoot, group);
    if (!existsSync(parent)) continue;
    for (const name of readdirSync(parent).sort()) {
      if (existsSync(path.join(parent, name, 'package.json'))) dirs.push(`${group}/${name}`);
    }
  }
  return dirs;
}

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, CI: 'true' } });
  if (result.status !== 0) throw new Error(`\`${command} ${args.join(' ')}\` failed in ${cwd} (exit ${result.status ?? result.signal}).`);
}

/**
 * Installs the production dependencies of every workspace package into `outDir/node_modules`,
 * exactly the versions of the lockfile: the workspace's manifests and lockfile are copied into
 * the empty `outDir` and `pnpm install --prod --frozen-lockfile` runs there. That is what
 * `pnpm deploy --prod` does for one package; here one tree serves every service, so a package
 * the services share is installed once. The layout is hoisted (flat, as npm's), so a bundle in
 * `dist/` resolves each dependency of any workspace package from the one `node_modules`.
 * Install scripts are skipped: no production dependency needs one (Prisma's engines and esbuild
 * are build-time only). Afterwards the workspace's own package folders are removed: the bundles
 * carry that code, and nothing at run time may load it from anywhere else.
 */
export function installProductionDependencies(repositoryRoot: string, outDir: string): void {
  const packageDirs = workspacePackageDirs(repositoryRoot);
  for (const file of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc']) {
    if (existsSync(path.join(repositoryRoot, file))) cpSync(path.join(repositoryRoot, file), path.join(outDir, file));
  }
  for (const dir of packageDirs) {
    mkdirSync(path.join(outDir, dir), { recursive: true });
    cpSync(path.join(repositoryRoot, dir, 'package.json'), path.join(outDir, dir, 'package.json'));
  }
  run(
    'pnpm',
    ['install', '--prod', '--frozen-lockfile', '--ignore-scripts', '--prefer-offline', '--config.node-linker=hoisted', '--reporter=append-only'],
    outDir,
  );
  // A version that could not be hoisted lands in the package's own node_modules, where a bundle
  // in dist/ would never find it and would load the hoisted one instead: refuse that tree.
  const nested = packageDirs.filter((dir) => {
    const modules = path.join(outDir, dir, 'node_modules');
    // .bin and the links to sibling workspace packages are all pnpm leaves there when nothing is nested.
    return existsSync(modules) && readdirSync(modules).some((entry) => entry !== '.bin' && entry !== '@mailroom');
  });
  if (nested.length > 0) {
    throw new Error(
      `These packages need a dependency version other than the one shared at the root, which the bundles cannot load: ${nested.join(', ')}. Align the versions in their package.json files.`,
    );
  }
  for (const group of ['packages', 'services']) rmSync(path.join(outDir, group), { recursive: true, force: true });
  rmSync(path.join(outDir, 'node_modules', '@mailroom'), { recursive: true, force: true });
}
