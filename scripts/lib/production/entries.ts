import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { BundleEntry } from './bundle-services';

/** Names that are not services but share dist/ with them. */
export const MIGRATE_ENTRY = 'migrate';
export const HEALTHCHECK_ENTRY = 'healthcheck';

/** Every `services/<name>/src/main.ts`, sorted: the services the production tree runs. */
export function discoverServiceNames(repositoryRoot: string): string[] {
  const servicesDir = path.join(repositoryRoot, 'services');
  return readdirSync(servicesDir)
    .filter((name) => existsSync(path.join(servicesDir, name, 'src/main.ts')))
    .sort();
}

/** What the production build bundles: each service, the migration CLI and the container health check. */
export function discoverProductionEntries(repositoryRoot: string): BundleEntry[] {
  const services = discoverServiceNames(repositoryRoot);
  for (const reserved of [MIGRATE_ENTRY, HEALTHCHECK_ENTRY]) {
    if (services.includes(reserved)) throw new Error(`A service may not be named "${reserved}": bin/mailroom uses that word.`);
  }
  return [
    ...services.map((name) => ({ name, entry: `services/${name}/src/main.ts` })),
    { name: MIGRATE_ENTRY, entry: 'packages/db/src/cli.ts' },
    { name: HEALTHCHECK_ENTRY, entry: 'scripts/production/healthcheck.ts' },
  ];
}
