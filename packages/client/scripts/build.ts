import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');
const entry = path.join(root, 'src/index.ts');
// Every platform the client supports has ES2022: Node 20, Deno, Bun, current browsers.
const target = 'es2022';

/**
 * dist/esm and dist/cjs: one JavaScript file each, beside the same declarations, with a
 * package.json saying which module system the folder is (what `exports` points at);
 * dist/browser/mailroom.js: one minified ES module for a <script type="module"> or a CDN, also
 * exported as `@mailroom/client/browser` (with the ES module's declarations).
 */
async function main(): Promise<void> {
  rmSync(dist, { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  for (const [folder, format] of [['esm', 'esm'], ['cjs', 'cjs']] as const) {
    const out = path.join(dist, folder);
    await build({ entryPoints: [entry], outfile: path.join(out, 'index.js'), bundle: true, format, platform: 'neutral', target, logLevel: 'warning' });
    writeFileSync(path.join(out, 'package.json'), `${JSON.stringify({ type: format === 'esm' ? 'module' : 'commonjs' })}\n`);
    copyDeclarations(path.join(dist, 'types'), out);
  }
  await build({
    entryPoints: [entry],
    outfile: path.join(dist, 'browser/mailroom.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target,
    minify: true,
    logLevel: 'warning',
  });
  writeFileSync(path.join(dist, 'browser/package.json'), `${JSON.stringify({ type: 'module' })}\n`);
  rmSync(path.join(dist, 'types'), { recursive: true });
}

/** Copies the .d.ts files, their relative imports pointing at .js as Node's resolution wants. */
function copyDeclarations(from: string, to: string): void {
  for (const name of readdirSync(from)) {
    const source = path.join(from, name);
    if (statSync(source).isDirectory()) {
      mkdirSync(path.join(to, name), { recursive: true });
      copyDeclarations(source, path.join(to, name));
    } else if (name.endsWith('.d.ts')) {
      const text = readFileSync(source, 'utf8').replace(/((?:from\s+|import\()['"]\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1.js$2');
      writeFileSync(path.join(to, name), text);
    } else cpSync(source, path.join(to, name));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
