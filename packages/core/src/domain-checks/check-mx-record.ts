import type { DomainResolver, RecordLookup } from '../check-domain-records';
import type { ExpectedRecord } from '../domain-records';
import { answer, verdict } from './dns-answers';

const hostName = (host: string) => host.toLowerCase().replace(/\.$/, '');

/**
 * Judges the return path's MX set: ours must be in it and be preferred to every other host
 * (a lower preference value), or bounces go to that host first (RFC 5321 §5.1: equal ones in
 * any order).
 */
export async function checkMxRecord(resolver: DomainResolver, record: ExpectedRecord): Promise<RecordLookup> {
  const mx = await answer(() => resolver.resolveMx(record.name));
  if (mx.kind === 'failed') return verdict('unknown', []);
  if (mx.kind === 'absent' || mx.records.length === 0) return verdict('missing', []);
  const hosts = [...mx.records].sort((a, b) => a.priority - b.priority).map((m) => ({ priority: m.priority, host: hostName(m.exchange) }));
  const found = hosts.map((m) => `${m.priority} ${m.host}`);
  const ourHost = hostName(record.value);
  const ours = hosts.filter((m) => m.host === ourHost);
  if (ours.length === 0) return verdict('mismatch', found, `${record.name}'s MX is ${hosts.map((m) => m.host || '.').join(', ')}, not ${ourHost}`);
  const preference = Math.min(...ours.map((m) => m.priority));
  const rival = hosts.find((m) => m.host !== ourHost && m.priority <= preference);
  if (rival) {
    const relation = rival.priority < preference ? 'preferred to' : 'as preferred as';
    return verdict('mismatch', found, `${rival.host || '.'} (preference ${rival.priority}) is ${relation} ${ourHost} (${preference}), so bounces may go there first`);
  }
  return verdict('match', found);
}
