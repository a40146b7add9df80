import { join } from 'node:path';
import { runPythonJson } from '../../../../test/support/python-script';

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
export async function dkimpyVerify(raw: Buffer, records: readonly TxtRecord[]): Promise<DkimpyVerdict[]> {
  const result = await runPythonJson<{ signatures: DkimpyVerdict[] }>({
    python: PYTHON,
    script: SCRIPT,
    args: records.flatMap((r) => [r.name, r.value]),
    input: raw,
    missing: { pattern: /No module named 'dkim'/, message: MISSING },
  });
  return result.signatures;
}
