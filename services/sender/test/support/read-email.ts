import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** A mailbox as Python's `email` package reads it. */
export interface ClientMailbox {
  /** The display name, decoded (headerregistry's structured parse). */
  name: string;
  address: string;
  /** The older API's reading of the same name: unquoted but not decoded, and that decoded (RFC 2047 §6.2). */
  legacy: { quoted: string | null; decoded: string | null };
}

export interface ClientAttachment {
  /** As get_filename() reads it: RFC 2231's filename*, else filename, else Content-Type's name. */
  filename: string | null;
  /** Content-Disposition's filename parameter as written, which get_filename() strips of surrounding white space. */
  filenameParam: string | null;
  contentType: string;
  contentId: string | null;
  disposition: string | null;
  size: number;
  sha256: string;
}

/** What a receiving mail client reads in a message, as read-email.py prints it. */
export interface ClientView {
  from: ClientMailbox[] | null;
  to: ClientMailbox[] | null;
  cc: ClientMailbox[] | null;
  replyTo: ClientMailbox[] | null;
  subject: string | null;
  /** Every field, by lower-case name, decoded. */
  headers: Record<string, string[]>;
  text: string | null;
  html: string | null;
  attachments: ClientAttachment[];
  /** What the parser found wrong with the message, "part: DefectName". */
  defects: string[];
}

const SCRIPT = join(__dirname, 'read-email.py');
/** The system interpreter: the script needs only the standard library. */
const PYTHON = process.env.READ_EMAIL_PYTHON ?? '/usr/bin/python3';

/**
 * Reads `raw` with Python 3's standard-library `email` package (policy.default), a parser
 * independent of nodemailer and mailparser, as a receiving mail client would.
 */
export function readEmail(raw: Buffer): Promise<ClientView> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (e) => reject(new Error(`${PYTHON} could not be started (set READ_EMAIL_PYTHON to a Python 3): ${e.message}`)));
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString();
      if (code !== 0) return reject(new Error(`read-email.py exited ${code}: ${stderr}`));
      try {
        resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as ClientView);
      } catch (e) {
        reject(new Error(`read-email.py printed no JSON (${(e as Error).message}): ${Buffer.concat(out).toString()} ${stderr}`));
      }
    });
    child.stdin.on('error', () => {}); // a crash before reading stdin is reported by 'close'
    child.stdin.end(raw);
  });
}
