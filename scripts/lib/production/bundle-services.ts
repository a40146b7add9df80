import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

/** One bundle: a TypeScript entry point in the repository and the file name it gets in dist/. */
export interface BundleEntry {
  readonly name: string;
  readonly entry: string;
}

export interface BundleOptions {
  readonly repositoryRoot: string;
  /** The production tree; bundles go to `<outDir>/dist/<name>.js`. */
  readonly outDir: string;
  readonly entries: readonly BundleEntry[];
}

const WORKSPACE_SCOPE = '@mailroom/';

/**
 * Our own code (this workspace's packages, the generated Prisma client) is bundled; every other
 * package stays a plain `require` resolved from the production tree's node_modules, installed from
 * the lockfile. Bundling a dependency would break those that read files beside themselves at run
 * time (BullMQ's Lua scripts, Prisma's wasm, swagger-ui-dist's assets).
 */
const workspaceOnly: Plugin = {
  name: 'workspace-only',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith(WORKSPACE_SCOPE) || path.isAbsolute(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * `__dirname` in a bundle is the bundle's folder. Source that finds files relative to itself
 * (the migration runner finds prisma/ four levels up) gets the folder it would have in the
 * production tree instead: dist/ sits at the tree's root as the repository's root does, so
 * `<dist>/../<folder of the source file>` keeps every relative path pointing where it did.
 */
function sourceDirname(repositoryRoot: string): Plugin {
  return {
    name: 'source-dirname',
    setup(builder) {
      builder.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = await readFile(args.path, 'utf8');
        if (!/\b__dirname\b/.test(source)) return undefined;
        const folder = path.relative(repositoryRoot, path.dirname(args.path)).split(path.sep).join('/');
        const replacement = `require("node:path").join(__dirname, "..", ${JSON.stringify(folder)})`;
        return { contents: source.replace(/\b__dirname\b/g, replacement), loader: 'ts' };
      });
    },
  };
}

/** Bundles each entry into one CommonJS file for Node 20, with a source map beside it. */
export async function bundleServices(options: BundleOptions): Promise<string[]> {
  const files: string[] = [];
  for (const { name, entry } of options.entries) {
    const outfile = path.join(options.outDir, 'dist', `${name}.js`);
    const result = await build({
      absWorkingDir: options.repositoryRoot,
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: 'linked',
      // Names stay readable in stack traces and logs; the size saved by minifying is irrelevant on a server.
      minify: false,
      logLevel: 'error',
      plugins: [workspaceOnly, sourceDirname(options.repositoryRoot)],
    });
    if (result.errors.length > 0) throw new Error(`esbuild failed for ${entry}`);
    files.push(outfile);
  }
  return files;
}
