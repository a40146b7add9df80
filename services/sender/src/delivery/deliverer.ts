import type { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { createResolver, DEFAULT_DNS_TIMEOUT_MS, type Logger } from '@mailroom/core';
import type { SMTPPoolOptions } from 'nodemailer';
import { CannotDowngradeError } from '../message/downgrade-to-7bit';
import { check8BitMime, EIGHT_BIT_CHECK, type EightBitCheck } from './check-8bitmime';
import { classifyReply, classifySmtpResult, connectionFailure, isNextHopFailure, isTlsFailure, type SmtpResult } from './classify-smtp-result';
import { MessageCopies, type SignMessage } from './message-copies';
import { type AttemptReport, NextHopGate, NextHopResting } from './next-hop-gate';
import type { DeliveryOutcome } from './outcome';
import { hasEightBitBytes, RAW_PARTS, type RawMessage, rawMessageBytes, streamRawParts } from './raw-message';
import { type MxHost, resolveMxRoute } from './resolve-mx';
import { parseSmarthostUrl, type SmarthostUrl } from './smarthost-url';
import { type PooledTransport, TransportPool } from './transport-pool';

/** What a {@link Deliverer} needs; see DESIGN.md §3 for the variables behind them. */
export interface DelivererOptions {
  /** Smarthost `smtp[s]://user:pass@host:port` (OUTBOUND_SMTP_URL); unset = direct MX delivery. */
  outboundSmtpUrl?: string | undefined;
  /** Port for direct MX delivery (MX_PORT). */
  mxPort: number;
  /** DNS servers for MX lookups, `ip`, `ip:port` or `[v6]:port` (DNS_SERVERS); unset = system resolvers. */
  dnsServers?: string[] | undefined;
  /** Deliver to MX hosts on private, loopback or link-local addresses (ALLOW_PRIVATE_NETWORKS). */
  allowPrivateNetworks: boolean;
  /** Name sent with EHLO. */
  heloName: string;
  logger: Logger;
  /** Budget for connecting, the greeting and STARTTLS, in ms. Default 30 s. */
  connectionTimeoutMs?: number;
  /** Budget for one whole delivery (DNS excepted), every MX tried included, in ms. Default 10 min. */
  totalTimeoutMs?: number;
  /** Wait per DNS query attempt, in ms (c-ares tries twice). Default 5 s. */
  dnsTimeoutMs?: number;
  /** Pooled connections per next-hop host. Default 5. */
  maxConnectionsPerHost?: number;
  /** How long a next hop that failed to connect is not tried again, in ms (see NextHopGate). Default 60 s. */
  nextHopRestMs?: number;
  /** Told each transaction's outcome and duration in seconds (the sender's latency histogram). */
  observe?: (outcome: DeliveryOutcome, seconds: number) => void;
}

/**
 * One message for one recipient; `raw` is the complete RFC 5322 message, one Buffer or the
 * parts that make it up, streamed as they are, never copied.
 */
export interface DeliveryRequest {
  envelopeFrom: string;
  recipient: string;
  /** The message as built, not signed. */
  raw: Buffer | RawMessage;
  /** Signs what goes out, last: `raw`, or the 7-bit copy made of it for a next hop without 8BITMIME. */
  sign?: SignMessage | undefined;
}

const NO_BYTES = Buffer.alloc(0);

const DEFAULT_CONNECTION_TIMEOUT_MS = 30_000;
// A whole delivery: the 10 minutes below and the rest of the transaction around them.
const DEFAULT_TOTAL_TIMEOUT_MS = 15 * 60_000;
// Inactivity allowed once connected: RFC 5321 §4.5.3.2.6 gives a server 10 minutes to answer the
// final dot (it may be filtering or storing the message), and a client that gives up sooner
// has the message delivered and sends it again on its retry.
const SOCKET_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_MAX_CONNECTIONS_PER_HOST = 5;
// A next hop that failed to connect is left alone this long (Postfix keeps a dead destination
// until its next queue run, minutes later).
const DEFAULT_NEXT_HOP_REST_MS = 60_000;
// Messages per connection before it is replaced, bounding what one session carries.
const MAX_MESSAGES_PER_CONNECTION = 100;
// A message is put back once when a reused connection turns out to be dead before any byte was sent.
const MAX_REQUEUES = 1;
// Idle pooled connections are closed after this, well below the 5 min servers may wait (RFC 5321).
const IDLE_CONNECTION_MS = 60_000;
// Next-hop pools kept open at once (per IP, port and TLS name).
const MAX_CACHED_TRANSPORTS = 500;
// Addresses tried per delivery across all MX hosts (Postfix's smtp_mx_address_limit is 5).
const MAX_ADDRESS_ATTEMPTS = 5;

/**
 * Delivers one raw message to one recipient in one SMTP transaction, through the smarthost
 * when configured, else directly to the recipient domain's MX hosts, and says what happened.
 * Connections are pooled per next hop and shared by concurrent calls.
 *
 * Direct delivery uses opportunistic STARTTLS without certificate checks, as MTAs do (MX
 * certificates rarely match), and plaintext only when STARTTLS is not offered, refused with a
 * non-2xx reply, or its handshake fails (then on a new connection to the same host). A
 * smarthost's certificate is verified (credentials travel over it) unless its URL says
 * `?tls.rejectUnauthorized=false`; an `smtp://` smarthost with credentials must accept STARTTLS
 * (deferred otherwise) unless its URL says `?requireTLS=false`.
 */
export class Deliverer {
  private readonly log: Logger;
  private readonly transports: TransportPool;
  private readonly mode: { kind: 'smarthost'; smarthost: SmarthostUrl } | { kind: 'direct'; resolver: Resolver };
  private readonly connectionTimeoutMs: number;
  private readonly totalTimeoutMs: number;
  private readonly maxConnections: number;
  private readonly gate: NextHopGate;
  private closed = false;

  constructor(private readonly options: DelivererOptions) {
    this.log = options.logger.child({ component: 'delivery' });
    this.mode = options.outboundSmtpUrl
      ? { kind: 'smarthost', smarthost: parseSmarthostUrl(options.outboundSmtpUrl) }
      : { kind: 'direct', resolver: createResolver(options.dnsServers, options.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS) };
    this.connectionTimeoutMs = options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;
    this.totalTimeoutMs = options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS;
    this.maxConnections = options.maxConnectionsPerHost ?? DEFAULT_MAX_CONNECTIONS_PER_HOST;
    this.gate = new NextHopGate({ perHop: this.maxConnections, restMs: options.nextHopRestMs ?? DEFAULT_NEXT_HOP_REST_MS });
    this.transports = new TransportPool({
      maxTransports: MAX_CACHED_TRANSPORTS,
      logger: this.log,
      prepare: (transport, pool) => {
        streamRawParts(transport);
        check8BitMime(transport, pool);
      },
    });
    this.log.info(
      this.mode.kind === 'smarthost'
        ? { mode: 'smarthost', smarthost: this.mode.smarthost.redacted }
        : { mode: 'direct', mxPort: options.mxPort, dnsServers: options.dnsServers ?? 'system' },
      'delivery configured',
    );
  }

  /**
   * Delivers `message.raw`, signed, to `message.recipient` and classifies the result. A message
   * with 8-bit bytes goes as it is where the next hop offers 8BITMIME, else as a 7-bit copy (see
   * downgradeTo7Bit), signed after the downgrade, or bounces 5.6.3 when there can be none.
   * Resolves with an outcome for every delivery problem (DNS, connection, SMTP replies,
   * timeouts); throws when called after {@link Deliverer.close}, or when `sign` does.
   */
  async deliver(message: DeliveryRequest): Promise<DeliveryOutcome> {
    if (this.closed) throw new Error('Deliverer.deliver called after close()');
    const copies = new MessageCopies(message.raw, message.sign);
    await copies.asBuilt();
    const startedAt = Date.now();
    const signal = AbortSignal.timeout(this.totalTimeoutMs);
    const outcome =
      this.mode.kind === 'smarthost'
        ? await this.viaSmarthost(this.mode.smarthost, message, copies, signal)
        : await this.direct(this.mode.resolver, message, copies, signal);
    this.log.info(
      {
        recipient: message.recipient,
        outcome: outcome.kind,
        host: outcome.kind === 'delivered' ? outcome.host : undefined,
        code: outcome.smtp?.code ?? null,
        enhancedCode: outcome.smtp?.enhancedCode ?? null,
        bounceType: outcome.kind === 'bounced' ? outcome.bounceType : undefined,
        error: outcome.kind === 'deferred' ? outcome.error : undefined,
        bytes: rawMessageBytes(message.raw),
        durationMs: Date.now() - startedAt,
      },
      'delivery attempt finished',
    );
    this.options.observe?.(outcome, (Date.now() - startedAt) / 1000);
    return outcome;
  }

  /** Closes pooled connections. Await in-flight deliveries first: queued sends would fail. */
  async close(): Promise<void> {
    this.closed = true;
    this.transports.close();
  }

  private async viaSmarthost(smarthost: SmarthostUrl, message: DeliveryRequest, copies: MessageCopies, signal: AbortSignal): Promise<DeliveryOutcome> {
    const transport = this.transports.get('smarthost', () => ({
      ...this.commonTransportOptions(),
      // Credentials never go out in plaintext (a stripped or refused STARTTLS defers instead).
      ...(smarthost.requireTls ? { requireTLS: true } : {}),
      // nodemailer reads host, port, secure, credentials and tls.* query options from the URL,
      // after the options above: `?requireTLS=false` there wins.
      url: smarthost.url,
    }));
    return classifySmtpResult(await this.through(`smarthost ${smarthost.host}`, () => send(transport, message, copies, signal, smarthost.host)));
  }

  /**
   * One attempt at a next hop through the gate: at most as many at once as the pool has
   * connections, none while the hop rests after failing to connect (then a NextHopResting
   * failure, which is a next-hop failure like a timeout).
   */
  private async through(nextHop: string, attempt: () => Promise<SmtpResult>): Promise<SmtpResult> {
    const result = await this.gate.run(nextHop, async () => {
      const value = await attempt();
      const cause = value.ok ? null : connectionFailure(value.error);
      const report: AttemptReport = cause === null ? { connected: true } : { connected: false, cause };
      return { value, report };
    });
    return result instanceof NextHopResting ? { ok: false, error: result } : result;
  }

  private async direct(resolver: Resolver, message: DeliveryRequest, copies: MessageCopies, signal: AbortSignal): Promise<DeliveryOutcome> {
    const at = message.recipient.lastIndexOf('@');
    const domain = at > 0 ? message.recipient.slice(at + 1) : '';
    if (!domain) {
      const text = 'Recipient address has no domain';
      return classifyReply({ code: null, enhancedCode: '5.1.3', message: text }, text);
    }
    const route = await resolveMxRoute(domain, { resolver, allowPrivateNetworks: this.options.allowPrivateNetworks });
    if (route.kind === 'outcome') return route.outcome;

    let last: DeliveryOutcome | null = null;
    for (const [host, address] of attemptOrder(route.hosts)) {
      if (this.closed || signal.aborted) break;
      const key = `${address}|${this.options.mxPort}|${host.name}`;
      const result = await this.through(`${host.name} [${address}]:${this.options.mxPort}`, async () => {
        const first = await send(this.transports.get(key, () => this.mxTransportOptions(host.name, address)), message, copies, signal, host.name);
        if (first.ok || !isTlsFailure(first.error) || this.closed || signal.aborted) return first;
        // A host whose TLS is broken still gets mail, in plaintext, as when it offers no STARTTLS.
        this.log.debug({ recipient: message.recipient, host: host.name, address, err: first.error }, 'TLS failed, trying again without it');
        const plain = this.transports.get(`${key}|plaintext`, () => ({ ...this.mxTransportOptions(host.name, address), ignoreTLS: true, opportunisticTLS: false }));
        return send(plain, message, copies, signal, host.name);
      });
      const outcome = classifySmtpResult(result);
      if (result.ok || !isNextHopFailure(result.error)) return outcome;
      this.log.debug({ recipient: message.recipient, host: host.name, address, outcome }, 'next hop failed, trying the next');
      last = outcome.kind === 'deferred' ? { ...outcome, error: `${host.name} [${address}]: ${outcome.error}` } : outcome;
    }
    return (
      last ?? {
        kind: 'deferred',
        smtp: null,
        error: signal.aborted ? 'Delivery timed out' : 'Delivery stopped: the deliverer is closing',
        retryAfterSeconds: null,
      }
    );
  }

  private mxTransportOptions(hostName: string, address: string): SMTPPoolOptions {
    return {
      ...this.commonTransportOptions(),
      host: address,
      port: this.options.mxPort,
      secure: false,
      // The connection goes to the IP we checked; TLS still names the MX host.
      servername: isIP(hostName) ? undefined : hostName,
      opportunisticTLS: true,
      tls: { rejectUnauthorized: false },
    };
  }

  private commonTransportOptions(): SMTPPoolOptions {
    return {
      name: this.options.heloName,
      connectionTimeout: this.connectionTimeoutMs,
      greetingTimeout: this.connectionTimeoutMs,
      socketTimeout: Math.min(SOCKET_TIMEOUT_MS, this.totalTimeoutMs),
      maxConnections: this.maxConnections,
      maxMessages: MAX_MESSAGES_PER_CONNECTION,
      maxRequeues: MAX_REQUEUES,
      idleTimeout: IDLE_CONNECTION_MS,
      logger: false,
    };
  }
}

/** (host, address) pairs in preference order, at most MAX_ADDRESS_ATTEMPTS of them. */
function attemptOrder(hosts: MxHost[]): Array<[MxHost, string]> {
  return hosts.flatMap((host) => host.addresses.map((address): [MxHost, string] => [host, address])).slice(0, MAX_ADDRESS_ATTEMPTS);
}

/**
 * One SMTP transaction for `message` on `transport`: the message as built, or, when the connection
 * offered no 8BITMIME and it has 8-bit bytes (refused before MAIL, see check8BitMime), its 7-bit
 * copy on the same transport. A message that cannot be made 7-bit fails as the SIZE check does
 * (classifySmtpResult: 5.6.3), without a reply: direct delivery tries the next MX, which may offer
 * 8BITMIME.
 */
async function send(transport: PooledTransport, message: DeliveryRequest, copies: MessageCopies, signal: AbortSignal, host: string): Promise<SmtpResult> {
  const asBuilt = await transmit(transport, message, await copies.asBuilt(), signal, host);
  if (!asBuilt.hopLacks8BitMime) return asBuilt.result;
  let sevenBit: Buffer | RawMessage;
  try {
    sevenBit = await copies.sevenBit();
  } catch (error) {
    if (error instanceof CannotDowngradeError) return { ok: false, error };
    throw error;
  }
  return (await transmit(transport, message, sevenBit, signal, host)).result;
}

async function transmit(
  transport: PooledTransport,
  message: DeliveryRequest,
  raw: Buffer | RawMessage,
  signal: AbortSignal,
  host: string,
): Promise<{ result: SmtpResult; hopLacks8BitMime: boolean }> {
  const eightBit = hasEightBitBytes(raw);
  const check: EightBitCheck = { refused: false };
  try {
    // Read by nodemailer's SMTP client though not in its types. `size` declares SIZE=<octets> on
    // MAIL when the next hop offers SIZE, and refuses before MAIL a message larger than the limit
    // it advertised (RFC 1870 §4, §6.1): without it, all the data went out only to be refused.
    // `use8BitMime` adds BODY=8BITMIME when the next hop offers 8BITMIME (RFC 6152 §3); when it
    // does not, the check refuses the message before MAIL.
    const envelope = { from: message.envelopeFrom, to: [message.recipient], size: rawMessageBytes(raw), use8BitMime: eightBit };
    const checked = eightBit ? { [EIGHT_BIT_CHECK]: check } : {};
    // The caller's Buffers are streamed as they are: no copy per recipient.
    const parts = { [RAW_PARTS]: raw };
    const info = await transport.sendMail(
      Buffer.isBuffer(raw) ? { envelope, raw, signal, ...checked } : { envelope, raw: NO_BYTES, signal, ...parts, ...checked },
    );
    return { result: { ok: true, response: info.response, host }, hopLacks8BitMime: false };
  } catch (error) {
    return { result: { ok: false, error }, hopLacks8BitMime: check.refused };
  }
}
