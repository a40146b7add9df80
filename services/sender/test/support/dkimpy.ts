import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** One DKIM-Signature of a message as dkimpy judged it. */
export interface DkimpyVerdict {
  index: number;
  pass: boolean;
  domain: string | null;
  selector: string | null;
  /** The h= list, as the signature names them. */
  headers: string[];
  canonicalization: string | null;
  /** null on a pass; else dkimpy's own words (its exception, or its last log line). */
  reason: string | null;
  log: string[];
}

/** A TXT record the verifier's DNS answers, as `/domains` gives it to publish. */
export interface TxtRecord {
  name: string;
  value: string;
}

const SCRIPT = join(__dirname, 'dkim-verify.py');
/** Debian's python3-dkim installs into the system interpreter, which a pyenv/venv python on PATH does not see. */
const PYTHON = process.env.DKIMPY_PYTHON ?? '/usr/bin/python3';
const MISSING = 'dkimpy is missing: install the Debian package python3-dkim (apt-get install -y python3-dkim), or set DKIMPY_PYTHON to a python that has it';

/**
 * Verifies every DKIM-Signature of `raw` with dkimpy (python3-dkim), a verifier independent of
 * nodemailer and mailauth, answering key lookups from `records` only (no real DNS).
 */
export function dkimpyVerify(raw: Buffer, records: readonly TxtRecord[]): Promise<DkimpyVerdict[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [SCRIPT, ...records.flatMap((r) => [r.name, r.value])], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (e) => reject(new Error(`${MISSING} (${e.message})`)));
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString();
      if (code !== 0) {
        return reject(new Error(/No module named 'dkim'/.test(stderr) ? MISSING : `dkim-verify.py exited ${code}: ${stderr}`));
      }
      try {
        resolve(JSON.parse(Buffer.concat(out).toString()).signatures as DkimpyVerdict[]);
      } catch (e) {
        reject(new Error(`dkim-verify.py printed no JSON (${(e as Error).message}): ${Buffer.concat(out).toString()} ${stderr}`));
      }
    });
    child.stdin.on('error', () => {}); // a crash before reading stdin is reported by 'close'
    child.stdin.end(raw);
  });
}
