import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Writes a self-signed P-256 certificate for `commonName`, valid a day (openssl), as `cert.pem` and `key.pem` in `dir`. */
export function selfSignedCertificate(dir: string, commonName: string): { certFile: string; keyFile: string } {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${commonName}`, '-keyout', keyFile, '-out', certFile],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile };
}
