import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '../../../../scripts/lib/free-port';

/** How an {@link AiosmtpdPeer} behaves; see aiosmtpd-peer.py. */
export interface AiosmtpdConfig {
  /** Advertise 8BITMIME. Default true. */
  eightBitMime?: boolean;
  /** Advertise and accept SMTPUTF8. Default false. */
  smtputf8?: boolean;
  /** Data size limit in octets, enforced after DATA. */
  size?: number;
  /** Advertise `size` as `SIZE <n>`. Default true. */
  advertiseSize?: boolean;
  /** Offer STARTTLS with this certificate (PEM files). */
  tls?: { cert: string; key: string };
  /** Replies (lines separated by CRLF) given instead of accepting the command. */
  replies?: Partial<Record<'MAIL' | 'RCPT' | 'DATA', string>>;
  /** Commands after whose reply the peer hangs up. */
  closeAfter?: Array<'MAIL' | 'RCPT' | 'DATA'>;
}

/** One MAIL FROM as aiosmtpd parsed it. */
export interface PeerMail {
  type: 'mail';
  from: string;
  /** The MAIL parameters, upper-cased as aiosmtpd keeps them, e.g. `SIZE=123`. */
  options: string[];
  tls: boolean;
}

/** One transaction whose data aiosmtpd received. */
export interface PeerMessage {
  type: 'message';
  from: string;
  to: string[];
  mailOptions: string[];
  rcptOptions: string[];
  /** The message as received, dot-stuffing undone. */
  content: Buffer;
  tls: boolean;
}

const SCRIPT = join(__dirname, 'aiosmtpd-peer.py');
/** Debian's python3-aiosmtpd installs into the system interpreter, which a pyenv/venv python on PATH does not see. */
const PYTHON = '/usr/bin/python3';
const MISSING = 'aiosmtpd is missing: DEBIAN_FRONTEND=noninteractive apt-get install -y python3-aiosmtpd';
// Bounds the wait for the peer to listen (a loaded CI machine is slow to start Python).
const START_TIMEOUT_MS = 30_000;

/**
 * An aiosmtpd SMTP server (an implementation independent of nodemailer) on 127.0.0.1, run as a
 * child process. Its events are complete once {@link AiosmtpdPeer.stop} has resolved.
 */
export class AiosmtpdPeer {
  readonly mails: PeerMail[] = [];
  readonly messages: PeerMessage[] = [];
  private stderr = '';

  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
  ) {}

  static async start(config: AiosmtpdConfig = {}): Promise<AiosmtpdPeer> {
    const port = await freePort();
    const child = spawn(PYTHON, [SCRIPT, String(port), JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const peer = new AiosmtpdPeer(port, child);
    child.stderr?.on('data', (chunk: Buffer) => {
      peer.stderr += chunk.toString();
    });
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`aiosmtpd peer did not start: ${peer.stderr}`)), START_TIMEOUT_MS);
      child.on('error', (e) => reject(new Error(`${MISSING} (${e.message})`)));
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(/No module named 'aiosmtpd'/.test(peer.stderr) ? MISSING : `aiosmtpd peer exited ${code}: ${peer.stderr}`));
      });
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        const event = JSON.parse(line) as { type: string } & Record<string, unknown>;
        if (event.type === 'ready') {
          clearTimeout(timer);
          resolve();
        } else if (event.type === 'mail') peer.mails.push(event as unknown as PeerMail);
        else if (event.type === 'message') {
          peer.messages.push({ ...(event as unknown as PeerMessage), content: Buffer.from(event.content as string, 'base64') });
        }
      });
    });
    await ready;
    return peer;
  }

  /** Stops the server and waits until it has exited, so every event it printed has been read. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'close');
    this.child.kill('SIGTERM');
    await exited;
  }
}
