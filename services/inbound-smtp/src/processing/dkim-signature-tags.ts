import { fieldName, splitHeaderFields } from './message-headers';

/** `tag=value` pairs of a DKIM-Signature field, names lower-cased, whitespace (FWS) removed; the first of a repeated tag wins. */
export function signatureTags(field: Buffer): Map<string, string> {
  const value = field.toString('latin1').replace(/^[^:]*:/, '');
  const tags = new Map<string, string>();
  for (const pair of value.split(';')) {
    const at = pair.indexOf('=');
    if (at < 0) continue;
    const name = pair.slice(0, at).replace(/\s+/g, '').toLowerCase();
    if (name && !tags.has(name)) tags.set(name, pair.slice(at + 1).replace(/\s+/g, ''));
  }
  return tags;
}

/** The DKIM-Signature fields of a message, topmost first. */
export function signatureFields(message: Buffer): Buffer[] {
  return splitHeaderFields(message).fields.filter((field) => fieldName(field) === 'dkim-signature');
}

/** DKIM-Signature fields by their b= (whitespace removed), as mailauth names a result (`signature`). */
export function signatureFieldsByB(fields: readonly Buffer[]): Map<string, Buffer> {
  const byB = new Map<string, Buffer>();
  for (const field of fields) {
    const b = signatureTags(field).get('b');
    if (b && !byB.has(b)) byB.set(b, field);
  }
  return byB;
}
