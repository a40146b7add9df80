import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** How to run one service: a command, its arguments and the folder to run it in. */
export interface ServiceCommand {
  readonly name: string;
  readonly cwd: string;
  readonly command: string;
  readonly args: string[];
  /** Variables set for this service only, over the supervisor's own environment. */
  readonly env?: Readonly<Record<string, string>>;
}

interface PackageJson {
  scripts?: Record<string, string>;
}

// A plain `tsx <file> [args]` script is run as `node --import tsx <file>`: one process per
// service, without pnpm's start-up time or tsx's relaying parent. Anything else (node flags,
// shell syntax) goes through `pnpm run start` unchanged.
const PLAIN_TSX = /^tsx\s+([\w./@][\w./@-]*\.[cm]?tsx?)((?:\s+[\w./@=-]+)*)$/;

/** Every `services/<name>` whose package.json has a `start` script, sorted by name. */
export function discoverServices(repositoryRoot: string): ServiceCommand[] {
  const servicesDir = path.join(repositoryRoot, 'services');
  if (!existsSync(servicesDir)) return [];
  const tsxLoader = pathToFileURL(require.resolve('tsx')).href;
  const found: ServiceCommand[] = [];
  for (const name of readdirSync(servicesDir).sort()) {
    const cwd = path.join(servicesDir, name);
    const manifest = path.join(cwd, 'package.json');
    if (!existsSync(manifest)) continue;
    const start = (JSON.parse(readFileSync(manifest, 'utf8')) as PackageJson).scripts?.start?.trim();
    if (!start) continue;
    const plain = PLAIN_TSX.exec(start);
    const [, file, rest = ''] = plain ?? [];
    found.push(
      file
        ? { name, cwd, command: process.execPath, args: ['--import', tsxLoader, file, ...rest.split(/\s+/).filter(Boolean)] }
        : { name, cwd, command: 'pnpm', args: ['run', '--silent', 'start'] },
    );
  }
  return found;
}
