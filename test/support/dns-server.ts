import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { once } from 'node:events';
import * as dnsPacket from 'dns-packet';

/** The records of one name. A name listed with no record of the asked type answers NODATA. */
export interface DnsRecords {
  MX?: Array<{ preference: number; exchange: string }>;
  A?: string[];
  AAAA?: string[];
  /** Each entry is one TXT record; an array entry is one record made of several strings. */
  TXT?: Array<string | string[]>;
}

/** Names (case-insensitive, no trailing dot) and their records. */
export type DnsZone = Record<string, DnsRecords>;

export interface DnsServerOptions {
  zone?: DnsZone;
  /** Names answered with SERVFAIL, whatever the zone says. */
  servfail?: string[];
  /** Names never answered, so the resolver times out. */
  silent?: string[];
}

/** One question the server was asked, for assertions. */
export interface DnsQuery {
  name: string;
  type: string;
}

// RCODE values (RFC 1035 §4.1.1), carried in the low 4 bits of the flags.
const NOERROR = 0;
const SERVFAIL = 2;
const NXDOMAIN = 3;
const TTL_SECONDS = 60;

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

/**
 * A tiny authoritative DNS server over UDP on 127.0.0.1 with a random port, answering from an
 * in-memory zone: NXDOMAIN for unknown names, NODATA for known names without the asked type,
 * SERVFAIL or silence for names listed in the options. Point a `node:dns` `Resolver` (or
 * `DNS_SERVERS`) at {@link DnsServer.address}.
 *
 * @example
 * const dns = await new DnsServer({ zone: { 'example.test': { MX: [{ preference: 10, exchange: 'mx.example.test' }] },
 *   'mx.example.test': { A: ['127.0.0.1'] } } }).start();
 * resolver.setServers([dns.address]);
 * await dns.stop();
 */
export class DnsServer {
  private socket: Socket | null = null;
  private zone = new Map<string, DnsRecords>();
  private readonly servfail: Set<string>;
  private readonly silent: Set<string>;
  /** Every question received, in order. */
  readonly queries: DnsQuery[] = [];
  port = 0;

  constructor(options: DnsServerOptions = {}) {
    this.setZone(options.zone ?? {});
    this.servfail = new Set((options.servfail ?? []).map(normalize));
    this.silent = new Set((options.silent ?? []).map(normalize));
  }

  /** `127.0.0.1:port`, the form `Resolver.setServers` and `DNS_SERVERS` take. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Replaces the whole zone; later queries see the new records. */
  setZone(zone: DnsZone): void {
    this.zone = new Map(Object.entries(zone).map(([name, records]) => [normalize(name), records]));
  }

  async start(): Promise<this> {
    const socket = createSocket('udp4');
    socket.on('message', (message, remote) => this.answer(socket, message, remote));
    socket.bind(0, '127.0.0.1');
    await once(socket, 'listening');
    this.port = socket.address().port;
    this.socket = socket;
    return this;
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  private answer(socket: Socket, message: Buffer, remote: RemoteInfo): void {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return; // not DNS; a real server would answer FORMERR, a test has no use for it
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = normalize(question.name);
    this.queries.push({ name, type: question.type });
    if (this.silent.has(name)) return;

    let rcode = NOERROR;
    let answers: dnsPacket.Answer[] = [];
    const records = this.zone.get(name);
    if (this.servfail.has(name)) rcode = SERVFAIL;
    else if (!records) rcode = NXDOMAIN;
    else answers = answersFor(question.name, question.type, records);

    const response = dnsPacket.encode({
      type: 'response',
      id: query.id ?? 0,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED) | rcode,
      questions: query.questions ?? [],
      answers,
    });
    socket.send(response, remote.port, remote.address);
  }
}

function answersFor(name: string, type: string, records: DnsRecords): dnsPacket.Answer[] {
  const base = { name, ttl: TTL_SECONDS, class: 'IN' as const };
  switch (type) {
    case 'MX':
      return (records.MX ?? []).map((data) => ({ ...base, type: 'MX' as const, data }));
    case 'A':
      return (records.A ?? []).map((data) => ({ ...base, type: 'A' as const, data }));
    case 'AAAA':
      return (records.AAAA ?? []).map((data) => ({ ...base, type: 'AAAA' as const, data }));
    case 'TXT':
      return (records.TXT ?? []).map((data) => ({ ...base, type: 'TXT' as const, data }));
    default:
      return [];
  }
}
