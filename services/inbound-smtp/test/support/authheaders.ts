import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { DnsZone } from '../../../../test/support/dns-server';

/** What authenticate.py (authheaders, dkimpy, pyspf) makes of one message. */
export interface PythonVerdicts {
  spf: { result: string; domain: string | null };
  dkim: { result: string; domain: string | null; selector: string | null; reason: string | null }[];
  dmarc: { result: string; policy: string | null; domain: string | null };
  arc: { result: string; reason: string | null };
}

/** The SMTP transaction and DNS a message is judged with. */
export interface PythonAuthenticateRequest {
  message: Buffer;
  ip: string;
  helo: string;
  /** '' for the null sender `<>`. */
  mailFrom: string;
  records: DnsZone;
}

/** A DKIM signature for dkimpy to make. `key` is a PKCS#1 PEM (rsa) or the base64 32-byte seed (ed25519). */
export interface PythonSignRequest {
  message: Buffer;
  selector: string;
  domain: string;
  key: string;
  algorithm: 'rsa-sha256' | 'ed25519-sha256';
  canonicalize: `${'simple' | 'relaxed'}/${'simple' | 'relaxed'}`;
  headers: string[];
  length?: boolean;
}

/** An ARC set for dkimpy to add; the chain status comes from the message's Authentication-Results for `srvId`. */
export interface PythonArcSealRequest {
  message: Buffer;
  selector: string;
  domain: string;
  /** PKCS#1 PEM: dkimpy seals with rsa-sha256 only. */
  key: string;
  srvId: string;
  headers: string[];
}

const SCRIPT = join(__dirname, 'authenticate.py');
/** Debian's python3-authheaders, python3-dkim and python3-spf install into the system interpreter, which a pyenv/venv python on PATH does not see. */
const PYTHON = process.env.AUTHHEADERS_PYTHON ?? '/usr/bin/python3';
const MISSING =
  'authheaders, dkimpy or pyspf is missing: install the Debian packages python3-authheaders python3-dkim python3-spf (apt-get install -y python3-authheaders python3-dkim python3-spf), or set AUTHHEADERS_PYTHON to a python that has them';

/** Verdicts for each request, by authenticate.py, in one Python process. */
export function pythonAuthenticate(requests: readonly PythonAuthenticateRequest[]): Promise<PythonVerdicts[]> {
  return run(requests.map((r) => ({ action: 'authenticate', message: r.message.toString('base64'), ip: r.ip, helo: r.helo, mail_from: r.mailFrom, records: r.records })));
}

/** The DKIM-Signature field (with its CRLF) dkimpy makes for each request. */
export async function dkimpySign(requests: readonly PythonSignRequest[]): Promise<string[]> {
  const results = await run<{ header: string }>(requests.map((r) => ({ ...r, action: 'sign', message: r.message.toString('base64') })));
  return results.map((r) => r.header);
}

/** The ARC set (ARC-Seal, ARC-Message-Signature, ARC-Authentication-Results, each with its CRLF) dkimpy adds. */
export async function dkimpyArcSeal(request: PythonArcSealRequest): Promise<string> {
  const [result] = await run<{ headers: string[] }>([{ ...request, action: 'arc-seal', message: request.message.toString('base64'), srv_id: request.srvId }]);
  if (!result || result.headers.length === 0) throw new Error('dkimpy added no ARC set (no Authentication-Results for the srv_id?)');
  return result.headers.join('');
}

function run<T>(requests: readonly object[]): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (e) => reject(new Error(`${MISSING} (${e.message})`)));
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString();
      if (code !== 0) return reject(new Error(/No module named '(authheaders|dkim|spf|authres)'/.test(stderr) ? MISSING : `authenticate.py exited ${code}: ${stderr}`));
      let results: Array<T | { error: string }>;
      try {
        results = JSON.parse(Buffer.concat(out).toString()) as Array<T | { error: string }>;
      } catch (e) {
        return reject(new Error(`authenticate.py printed no JSON (${(e as Error).message}): ${Buffer.concat(out).toString()} ${stderr}`));
      }
      const failed = results.find((r): r is { error: string } => typeof r === 'object' && r !== null && 'error' in r);
      if (failed) return reject(new Error(`authenticate.py: ${failed.error}`));
      resolve(results as T[]);
    });
    child.stdin.on('error', () => {}); // a crash before reading stdin is reported by 'close'
    child.stdin.end(JSON.stringify(requests));
  });
}
