import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';

/** The dashboard's build, relative to the repository and to the production tree alike. */
export const DASHBOARD_DIST = 'packages/dashboard/dist';

/**
 * Copies the dashboard's static build into the production tree at the same relative path, where
 * the bundled gateway looks for it (its source finds the build relative to itself, and the
 * bundle keeps source-relative paths). The build comes from `pnpm install`'s postinstall.
 */
export function copyDashboard(repositoryRoot: string, outDir: string): void {
  const from = path.join(repositoryRoot, DASHBOARD_DIST);
  if (!existsSync(path.join(from, 'index.html'))) {
    throw new Error(`${DASHBOARD_DIST} is not built; run \`pnpm install\` (its postinstall builds it) or \`pnpm --filter @mailroom/dashboard build\` first.`);
  }
  cpSync(from, path.join(outDir, DASHBOARD_DIST), { recursive: true });
}
