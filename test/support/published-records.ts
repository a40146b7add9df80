import type { DnsZone } from './dns-server';

/** A record as `/domains` tells the user to publish it. */
export interface PublishableRecord {
  type: 'TXT' | 'MX';
  name: string;
  value: string;
  priority?: number;
  splitValue?: string;
}

/**
 * The zone a user ends up with after publishing exactly these records, as a DNS provider stores
 * them: a TXT value over 255 bytes as the quoted strings of `splitValue`, an MX with its priority.
 * Records at the same name are merged; `zone` (if given) is extended.
 */
export function publish(records: readonly PublishableRecord[], zone: DnsZone = {}): DnsZone {
  for (const record of records) {
    const at = zone[record.name] ?? {};
    zone[record.name] = at;
    if (record.type === 'MX') {
      at.MX = [...(at.MX ?? []), { preference: record.priority ?? 10, exchange: record.value }];
    } else {
      const strings = record.splitValue ? [...record.splitValue.matchAll(/"([^"]*)"/g)].map((m) => m[1] as string) : null;
      at.TXT = [...(at.TXT ?? []), strings ?? record.value];
    }
  }
  return zone;
}
