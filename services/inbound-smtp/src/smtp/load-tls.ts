import { readFileSync } from 'node:fs';
import { ConfigError } from '@mailroom/core';

/**
 * The PEM key and certificate for STARTTLS, read once at start; undefined when
 * SMTP_TLS_CERT_FILE/SMTP_TLS_KEY_FILE are unset (the config requires both or neither).
 */
export function loadTls(certFile: string | undefined, keyFile: string | undefined): { key: Buffer; cert: Buffer } | undefined {
  if (!certFile || !keyFile) return undefined;
  return { cert: readPem(certFile, 'SMTP_TLS_CERT_FILE'), key: readPem(keyFile, 'SMTP_TLS_KEY_FILE') };
}

function readPem(file: string, variable: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ConfigError(`Invalid ${variable}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}).`);
  }
}
