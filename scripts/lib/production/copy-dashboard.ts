import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';

/** The dashboard's build in the repository, and where the production tree (no package folders) holds it. */
export const DASHBOARD_DIST = 'packages/dashboard/dist';
export const TREE_DASHBOARD_DIR = 'dashboard';

/**
 * Copies the dashboard's static build into the production tree's dashboard/, where the bundled
 * gateway looks for it (services/gateway/src/features/dashboard). The build comes from
 * `pnpm install`'s postinstall.
 */
export function copyDashboard(repositoryRoot: string, outDir: string): void {
  const from = path.join(repositoryRoot, DASHBOARD_DIST);
  if (!existsSync(path.join(from, 'index.html'))) {
    throw new Error(`${DASHBOARD_DIST} is not built; run \`pnpm install\` (its postinstall builds it) or \`pnpm --filter @mailroom/dashboard build\` first.`);
  }
  cpSync(from, path.join(outDir, TREE_DASHBOARD_DIR), { recursive: true });
}
