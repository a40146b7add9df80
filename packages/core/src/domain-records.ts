import type { Config } from './config';

/**
 * The DNS records a sending domain publishes (issue 12), computed in one place for the API
 * that shows them, the checks that look them up and the sender that relies on them.
 */

/** What the installation asks every domain to publish (DOMAIN_MX_HOST, DOMAIN_SPF_MECHANISMS, RETURN_PATH_LABEL). */
export interface DomainDnsSettings {
  mxHost: string;
  spfMechanisms: string;
  returnPathLabel: string;
}

/** The settings from the configuration (DOMAIN_MX_HOST, DOMAIN_SPF_MECHANISMS, RETURN_PATH_LABEL). */
export function domainDnsSettings(config: Pick<Config, 'domainMxHost' | 'domainSpfMechanisms' | 'returnPathLabel'>): DomainDnsSettings {
  return { mxHost: config.domainMxHost, spfMechanisms: config.domainSpfMechanisms, returnPathLabel: config.returnPathLabel };
}

/** One DKIM key of a domain as published: `<selector>._domainkey.<domain>`, `p=` the base64 SPKI. */
export interface PublishedDkimKey {
  selector: string;
  publicKey: string;
}

/** The parts of a domain its records depend on. */
export interface DomainRecordSource {
  name: string;
  verificationToken: string;
  /** The key mail is signed with. */
  dkim: PublishedDkimKey;
  /** A rotation's new key: published and checked, used once verified. */
  nextDkim: PublishedDkimKey | null;
  /** The key before the last rotation, still published for mail in flight. */
  previousDkim: PublishedDkimKey | null;
}

export type DomainRecordPurpose = 'verification' | 'dkim' | 'return_path_mx' | 'return_path_spf' | 'dmarc';

/** One record to publish. `key` names it in the stored checks. */
export interface ExpectedRecord {
  key: string;
  purpose: DomainRecordPurpose;
  type: 'TXT' | 'MX';
  /** Fully qualified, without the trailing dot. */
  name: string;
  /** For MX the exchange host; for TXT the whole text. */
  value: string;
  /** MX preference. */
  priority?: number;
  /** Needed for the domain to be verified (DMARC and keys being rotated in or out are not). */
  required: boolean;
  /** For DKIM records: which key. */
  selector?: string;
  /** `current`, `next` (being rotated in) or `previous` (being rotated out), for DKIM records. */
  keyState?: 'current' | 'next' | 'previous';
}

/** Label of the ownership record: `_mailroom.<domain>`. */
export const VERIFICATION_LABEL = '_mailroom';
const VERIFICATION_PREFIX = 'mailroom-verification=';
// A TXT string holds at most 255 bytes (RFC 1035 §3.3); longer values are several strings.
const TXT_STRING_BYTES = 255;
const MX_PRIORITY = 10;

/** The return-path subdomain of a domain: where its VERP bounces go, and what SPF checks. */
export function returnPathDomain(name: string, settings: Pick<DomainDnsSettings, 'returnPathLabel'>): string {
  return `${settings.returnPathLabel}.${name}`;
}

export const verificationValue = (token: string) => `${VERIFICATION_PREFIX}${token}`;
export const dkimRecordName = (selector: string, domain: string) => `${selector}._domainkey.${domain}`;
export const dkimRecordValue = (publicKey: string) => `v=DKIM1; k=rsa; p=${publicKey}`;
export const spfRecordValue = (mechanisms: string) => `v=spf1 ${mechanisms} -all`;
/** Monitoring only: reports nothing is rejected, so adding it can never lose mail. */
export const DMARC_RECOMMENDED = 'v=DMARC1; p=none; adkim=r; aspf=r';

/** Every record the domain should publish, required ones first. */
export function expectedRecords(domain: DomainRecordSource, settings: DomainDnsSettings): ExpectedRecord[] {
  const bounces = returnPathDomain(domain.name, settings);
  const dkim = (key: PublishedDkimKey, keyState: 'current' | 'next' | 'previous'): ExpectedRecord => ({
    key: `dkim:${key.selector}`,
    purpose: 'dkim',
    type: 'TXT',
    name: dkimRecordName(key.selector, domain.name),
    value: dkimRecordValue(key.publicKey),
    required: keyState === 'current',
    selector: key.selector,
    keyState,
  });
  return [
    { key: 'verification', purpose: 'verification', type: 'TXT', name: `${VERIFICATION_LABEL}.${domain.name}`, value: verificationValue(domain.verificationToken), required: true },
    dkim(domain.dkim, 'current'),
    { key: 'return_path_mx', purpose: 'return_path_mx', type: 'MX', name: bounces, value: settings.mxHost, priority: MX_PRIORITY, required: true },
    { key: 'return_path_spf', purpose: 'return_path_spf', type: 'TXT', name: bounces, value: spfRecordValue(settings.spfMechanisms), required: true },
    ...(domain.nextDkim ? [dkim(domain.nextDkim, 'next')] : []),
    ...(domain.previousDkim ? [dkim(domain.previousDkim, 'previous')] : []),
    { key: 'dmarc', purpose: 'dmarc', type: 'TXT', name: `_dmarc.${domain.name}`, value: DMARC_RECOMMENDED, required: false },
  ];
}

/** A TXT value as the strings of at most 255 bytes a DNS provider may need it split into. */
export function splitTxtValue(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length <= TXT_STRING_BYTES) return [value];
  const parts: string[] = [];
  // Record values here are ASCII, so byte offsets never split a character.
  for (let at = 0; at < bytes.length; at += TXT_STRING_BYTES) parts.push(bytes.subarray(at, at + TXT_STRING_BYTES).toString('utf8'));
  return parts;
}
