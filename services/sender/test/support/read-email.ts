import { join } from 'node:path';
import { runPythonJson } from '../../../../test/support/python-script';

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
  return runPythonJson<ClientView>({
    python: PYTHON,
    script: SCRIPT,
    input: raw,
    missing: { message: `${PYTHON} could not be started (set READ_EMAIL_PYTHON to a Python 3)` },
  });
}
