import { join } from 'node:path';
import type { DnsZone } from '../../../../test/support/dns-server';
import { runPythonJson } from '../../../../test/support/python-script';

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
  /** rsa-sha1 is historic (RFC 8301 §3.1); dkimpy still signs with it. */
  algorithm: 'rsa-sha256' | 'rsa-sha1' | 'ed25519-sha256';
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

/**
 * For each message, its topmost DKIM-Signature field (with its CRLF) as it reads but with b= made
 * anew by dkimpy over the header as it now is: a signature dkimpy will not write (edited tags,
 * whitespace around `=`) that still verifies. `key` is the PKCS#1 PEM of an RSA key.
 */
export async function dkimpyResign(requests: readonly { message: Buffer; key: string }[]): Promise<string[]> {
  const results = await run<{ header: string }>(requests.map((r) => ({ action: 'resign', message: r.message.toString('base64'), key: r.key })));
  return results.map((r) => r.header);
}

/** The ARC set (ARC-Seal, ARC-Message-Signature, ARC-Authentication-Results, each with its CRLF) dkimpy adds. */
export async function dkimpyArcSeal(request: PythonArcSealRequest): Promise<string> {
  const [result] = await run<{ headers: string[] }>([{ ...request, action: 'arc-seal', message: request.message.toString('base64'), srv_id: request.srvId }]);
  if (!result || result.headers.length === 0) throw new Error('dkimpy added no ARC set (no Authentication-Results for the srv_id?)');
  return result.headers.join('');
}

/** Sends the requests to authenticate.py at once; rejects if it reports an error for any. */
async function run<T>(requests: readonly object[]): Promise<T[]> {
  const results = await runPythonJson<Array<T | { error: string }>>({
    python: PYTHON,
    script: SCRIPT,
    input: JSON.stringify(requests),
    missing: { pattern: /No module named '(authheaders|dkim|spf|authres)'/, message: MISSING },
  });
  const failed = results.find((r): r is { error: string } => typeof r === 'object' && r !== null && 'error' in r);
  if (failed) throw new Error(`authenticate.py: ${failed.error}`);
  return results as T[];
}
