import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cliPath } from './paths';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const packageDirectory = path.resolve(__dirname, '..', '..');

/**
 * The node flags the CLI needs: the wasm engine is an ES module importing a .wasm file, which
 * Node 20 loads only behind --experimental-wasm-modules, and tsx runs the TypeScript.
 */
export function cliNodeFlags(): string[] {
  return [
    '--experimental-wasm-modules',
    // The one warning that flag prints on every run says nothing actionable.
    '--disable-warning=ExperimentalWarning',
    '--import',
    pathToFileURL(require.resolve('tsx')).href,
  ];
}

/** Runs `cli.ts <args>` in a child Node with DATABASE_URL set; resolves whatever its exit code. */
export function runCli(args: readonly string[], databaseUrl: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliNodeFlags(), cliPath, ...args], {
      cwd: packageDirectory,
      // The child inherits this process's environment, as any child would, with the one URL changed.
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({
        code: code ?? (signal === null ? 1 : 128),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}
