import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import * as dnsPacket from 'dns-packet';
import { answerFrom, type DnsErrorRcode, type DnsRecords, type DnsZone, normalize, RCODES } from './dns-answer';

export { type DnsErrorRcode, type DnsRecords, type DnsZone, ptrName } from './dns-answer';

export interface DnsServerOptions {
  zone?: DnsZone;
  /** Names answered with SERVFAIL, whatever the zone says. */
  servfail?: string[];
  /** Names answered with this rcode, whatever the zone says (also when reached through a CNAME). */
  rcode?: Record<string, DnsErrorRcode>;
  /** Names never answered, so the resolver times out. */
  silent?: string[];
  /** Names whose UDP answers always come truncated (TC=1, no records), so only TCP gets them; `'all'` for every name. */
  truncate?: string[] | 'all';
  /**
   * Answer over TCP too, on the same port number (RFC 7766). Default true; false plays a server
   * that does not, to show a lookup needed TCP.
   */
  tcp?: boolean;
}

/** One question the server was asked, for assertions. */
export interface DnsQuery {
  name: string;
  type: string;
}

// Largest UDP answer without EDNS0 (RFC 1035 §4.2.1); with it, the client's advertised size (RFC 6891 §6.2.5).
const CLASSIC_UDP_BYTES = 512;
// Attempts at a port number free on both UDP and TCP.
const BIND_ATTEMPTS = 20;

/**
 * A tiny authoritative DNS server on 127.0.0.1 with a random port, over UDP and TCP (same port
 * number), answering from an in-memory zone: NXDOMAIN for unknown names, NODATA for known names
 * without the asked type, CNAME chains followed, an error rcode or silence for names listed in
 * the options. A UDP answer over 512 bytes (or over the query's EDNS0 size) is sent truncated,
 * TC=1 with no records, as are all UDP answers for names in `truncate`. Point a `node:dns`
 * `Resolver` (or `DNS_SERVERS`) at {@link DnsServer.address}.
 *
 * @example
 * const dns = await new DnsServer({ zone: { 'example.test': { MX: [{ preference: 10, exchange: 'mx.example.test' }] },
 *   'mx.example.test': { A: ['127.0.0.1'] } } }).start();
 * resolver.setServers([dns.address]);
 * await dns.stop();
 */
export class DnsServer {
  private udp: UdpSocket | null = null;
  private tcp: Server | null = null;
  private readonly connections = new Set<Socket>();
  private zone = new Map<string, DnsRecords>();
  private readonly errors: Map<string, DnsErrorRcode>;
  private readonly silent: Set<string>;
  private readonly truncate: Set<string> | 'all';
  private readonly withTcp: boolean;
  /** Every question received (over UDP or TCP), in order. */
  readonly queries: DnsQuery[] = [];
  /** The questions received over TCP, in order. */
  readonly tcpQueries: DnsQuery[] = [];
  /** The questions answered over UDP with TC=1, in order. */
  readonly truncated: DnsQuery[] = [];
  port = 0;

  constructor(options: DnsServerOptions = {}) {
    this.setZone(options.zone ?? {});
    this.errors = new Map<string, DnsErrorRcode>([
      ...(options.servfail ?? []).map((name) => [normalize(name), 'SERVFAIL'] as const),
      ...Object.entries(options.rcode ?? {}).map(([name, rcode]) => [normalize(name), rcode] as const),
    ]);
    this.silent = new Set((options.silent ?? []).map(normalize));
    this.truncate = options.truncate === 'all' ? 'all' : new Set((options.truncate ?? []).map(normalize));
    this.withTcp = options.tcp ?? true;
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
    for (let attempt = 1; ; attempt += 1) {
      const udp = createSocket('udp4');
      udp.on('message', (message, remote) => this.answerUdp(udp, message, remote));
      udp.bind(0, '127.0.0.1');
      await once(udp, 'listening');
      this.udp = udp;
      this.port = udp.address().port;
      if (!this.withTcp) return this;
      try {
        this.tcp = await this.listenTcp(this.port);
        return this;
      } catch (error) {
        // The port is free for UDP but taken for TCP: start over with another one.
        await this.stop();
        if (attempt >= BIND_ATTEMPTS) throw error;
      }
    }
  }

  async stop(): Promise<void> {
    const { udp, tcp } = this;
    this.udp = null;
    this.tcp = null;
    for (const connection of this.connections) connection.destroy();
    this.connections.clear();
    if (udp) await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (tcp) await new Promise<void>((resolve) => tcp.close(() => resolve()));
  }

  private listenTcp(port: number): Promise<Server> {
    const server = createServer((connection) => this.serveTcp(connection));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve(server);
      });
    });
  }

  /** RFC 1035 §4.2.2 framing: each message after its two-byte length; several may share a connection. */
  private serveTcp(connection: Socket): void {
    this.connections.add(connection);
    connection.on('close', () => this.connections.delete(connection));
    connection.on('error', () => connection.destroy());
    let pending = Buffer.alloc(0);
    connection.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const length = pending.readUInt16BE(0);
        if (pending.length < 2 + length) return;
        const message = pending.subarray(2, 2 + length);
        pending = pending.subarray(2 + length);
        const response = this.respond(message, 'tcp');
        if (!response) continue;
        const frame = Buffer.alloc(2);
        frame.writeUInt16BE(response.length);
        connection.write(Buffer.concat([frame, response]));
      }
    });
  }

  private answerUdp(socket: UdpSocket, message: Buffer, remote: RemoteInfo): void {
    const response = this.respond(message, 'udp');
    if (response) socket.send(response, remote.port, remote.address);
  }

  /** The encoded response to a query, or null when it is left unanswered. */
  private respond(message: Buffer, transport: 'udp' | 'tcp'): Buffer | null {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return null; // not DNS; a real server would answer FORMERR, a test has no use for it
    }
    const question = query.questions?.[0];
    if (!question) return null;
    const name = normalize(question.name);
    const asked = { name, type: question.type };
    this.queries.push(asked);
    if (transport === 'tcp') this.tcpQueries.push({ ...asked });
    if (this.silent.has(name)) return null;

    const edns = query.additionals?.find((record): record is dnsPacket.OptAnswer => record.type === 'OPT');
    const { rcode, answers } = answerFrom(this.zone, this.errors, question);
    const encode = (truncated: boolean) =>
      dnsPacket.encode({
        type: 'response',
        id: query.id ?? 0,
        flags:
          dnsPacket.AUTHORITATIVE_ANSWER |
          ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED) |
          (truncated ? dnsPacket.TRUNCATED_RESPONSE : 0) |
          (truncated ? RCODES.NOERROR : rcode),
        questions: query.questions ?? [],
        answers: truncated ? [] : answers,
        // RFC 6891 §7: a response to a query with OPT carries OPT too (1232 bytes: the usual EDNS0 size).
        additionals: edns ? [{ type: 'OPT', name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] : [],
      });
    const whole = encode(false);
    if (transport === 'udp') {
      const limit = Math.max(CLASSIC_UDP_BYTES, edns?.udpPayloadSize ?? 0);
      if (this.truncate === 'all' || this.truncate.has(name) || whole.length > limit) {
        this.truncated.push({ ...asked });
        return encode(true);
      }
    }
    return whole;
  }
}
