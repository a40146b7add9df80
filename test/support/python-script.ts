import { spawn } from 'node:child_process';
import { basename } from 'node:path';

export interface PythonScriptRun {
  /** The interpreter: Debian's python3-* packages install into the system one (`/usr/bin/python3`), which a pyenv/venv python on PATH does not see. */
  python: string;
  script: string;
  args?: readonly string[];
  /** What the script reads on stdin. */
  input: Buffer | string;
  /**
   * Said instead of Python's own error when the interpreter cannot start, or when the script's
   * stderr matches `pattern` (say, `No module named 'dkim'`): how to get what is missing.
   */
  missing: { pattern?: RegExp; message: string };
}

/**
 * Runs one of the tests' Python helpers (an independent implementation to compare with: dkimpy,
 * Python's email package, authheaders) and answers the JSON it prints on stdout. Rejects with
 * what went wrong: the interpreter or a module missing (`missing.message`), the script's exit
 * code and stderr, or output that is not JSON.
 */
export function runPythonJson<T>(run: PythonScriptRun): Promise<T> {
  const name = basename(run.script);
  return new Promise((resolve, reject) => {
    const child = spawn(run.python, [run.script, ...(run.args ?? [])], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (e) => reject(new Error(`${run.missing.message} (${e.message})`)));
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString();
      const stdout = Buffer.concat(out).toString('utf8');
      if (code !== 0) return reject(new Error(run.missing.pattern?.test(stderr) ? run.missing.message : `${name} exited ${code}: ${stderr}`));
      try {
        resolve(JSON.parse(stdout) as T);
      } catch (e) {
        reject(new Error(`${name} printed no JSON (${(e as Error).message}): ${stdout} ${stderr}`));
      }
    });
    child.stdin.on('error', () => {}); // a crash before reading stdin is reported by 'close'
    child.stdin.end(run.input);
  });
}
