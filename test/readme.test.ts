import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SCRIPTS = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
const SERVICES = readdirSync(join(ROOT, 'services'));
// pnpm's own commands that the README may name.
const PNPM_COMMANDS = new Set(['install', 'add', 'run', 'pack']);
// Folders git ignores (what runs write, such as test-results/): named by the README, made by a run.
const IGNORED_FOLDERS = readFileSync(join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim().replace(/^\//, ''))
  .filter((line) => line.endsWith('/') && !line.startsWith('#'));

describe('the README', () => {
  test('when it names a file or folder of this repository, then it exists', () => {
    // A path that climbs out of the repository (the README's example of a hostile filename) names none of its files.
    const mentioned = [...README.matchAll(/`((?:[\w.-]+\/)+[\w.-]*)`/g)].map((m) => m[1] as string).filter((p) => !p.startsWith('/') && !p.startsWith('../') && !IGNORED_FOLDERS.some((folder) => p.startsWith(folder)));
    const links = [...README.matchAll(/\]\((?!https?:|#)([^)]+)\)/g)].map((m) => m[1] as string);
    expect(mentioned.length).toBeGreaterThan(3);
    expect([...mentioned, ...links].filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  test('when it links to a section, then the section exists', () => {
    const anchors = new Set([...README.matchAll(/^#+ (.+)$/gm)].map((m) => (m[1] as string).toLowerCase().replace(/[^\w\s-]/g, '').replace(/\s/g, '-')));
    const targets = [...README.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1] as string);
    expect(targets.filter((t) => !anchors.has(t))).toEqual([]);
  });

  test('when it names a pnpm command, then the command exists, and start:<service> only for services that exist', () => {
    const commands = [...README.matchAll(/\bpnpm ([\w:-]+)/g)]
      .map((m) => m[1] as string)
      .concat([...README.matchAll(/`(start:[\w-]+)`/g)].map((m) => m[1] as string))
      // `pnpm start:<service>` is a pattern, not a command.
      .filter((c) => !c.endsWith(':'));
    const unknown = commands.filter((c) => !SCRIPTS.includes(c) && !PNPM_COMMANDS.has(c));
    expect(unknown).toEqual([]);
    const services = commands.filter((c) => c.startsWith('start:')).map((c) => c.slice('start:'.length));
    expect(services.filter((s) => !SERVICES.includes(s))).toEqual([]);
  });

  test('then the quick start is the two commands of the design, word for word', () => {
    expect(README).toContain('npm install -g pnpm@10 && pnpm install && pnpm start');
    expect(README).toContain('npm install -g pnpm@10 && pnpm install && pnpm test');
    expect(README).toContain('pnpm dev:mailbox');
  });
});
