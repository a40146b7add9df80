import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { DkimpyVerdict, TxtRecord } from './dkimpy';

const SCRIPT = join(__dirname, 'dkim-verify-server.py');
/** Debian's python3-dkim installs into the system interpreter, which a pyenv/venv python on PATH does not see. */
const PYTHON = process.env.DKIMPY_PYTHON ?? '/usr/bin/python3';
const MISSING = 'dkimpy is missing: install the Debian package python3-dkim (apt-get install -y python3-dkim), or set DKIMPY_PYTHON to a python that has it';

/**
 * dkimpy (python3-dkim) as `dkimpyVerify` runs it (dkim-verify.py, same verdicts), in one Python
 * process for many messages: starting Python and importing dkimpy costs far more than a
 * verification, so a file verifying hundreds of copies starts it once.
 */
export class DkimpyServer {
  private child: ChildProcessWithoutNullStreams | undefined;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (v: DkimpyVerdict[]) => void; reject: (e: Error) => void }>();
  private stderr = '';
  private failure: Error | undefined;

  /** Starts Python and resolves once dkimpy is imported. */
  async start(): Promise<this> {
    const child = spawn(PYTHON, [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    child.stderr.setEncoding('utf8').on('data', (s: string) => (this.stderr += s));
    child.stdin.on('error', () => {}); // a crash is reported by 'close'
    const ready = new Promise<void>((resolve, reject) => {
      const fail = (e: Error) => {
        this.failure = e;
        for (const waiting of this.pending.values()) waiting.reject(e);
        this.pending.clear();
        reject(e);
      };
      child.on('error', (e) => fail(new Error(`${MISSING} (${e.message})`)));
      child.on('close', (code) => fail(new Error(/No module named 'dkim'/.test(this.stderr) ? MISSING : `dkim-verify-server.py exited ${code}: ${this.stderr}`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        const answer = JSON.parse(line) as { ready?: true; id?: number; result?: { signatures: DkimpyVerdict[] }; error?: string };
        if (answer.ready) return resolve();
        const waiting = this.pending.get(answer.id as number);
        if (!waiting) return;
        this.pending.delete(answer.id as number);
        if (answer.error !== undefined) waiting.reject(new Error(`dkim-verify.py: ${answer.error}`));
        else waiting.resolve((answer.result as { signatures: DkimpyVerdict[] }).signatures);
      });
    });
    await ready;
    return this;
  }

  /** Every DKIM-Signature of `raw` as dkimpy judges it, key lookups answered from `records` only (no real DNS). */
  verify(raw: Buffer, records: readonly TxtRecord[]): Promise<DkimpyVerdict[]> {
    const child = this.child;
    if (!child) return Promise.reject(new Error('DkimpyServer.start() first'));
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.stdin.write(`${JSON.stringify({ id, records: records.map((r) => [r.name, r.value]), message: raw.toString('base64') })}\n`);
    });
  }

  /** Ends Python's input; resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.stdin.end();
    await closed;
  }
}
