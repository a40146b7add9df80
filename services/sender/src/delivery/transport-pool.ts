import type { Logger } from '@mailroom/core';
import nodemailer, { type SMTPPoolOptions, type SMTPPoolSentMessageInfo, type Transporter } from 'nodemailer';
import SMTPPool from 'nodemailer/lib/smtp-pool';

/** A nodemailer transporter backed by a connection pool to one next hop. */
export type PooledTransport = Transporter<SMTPPoolSentMessageInfo, SMTPPoolOptions>;

interface Entry {
  pool: SMTPPool;
  transport: PooledTransport;
}

export interface TransportPoolOptions {
  /** Pools kept open at once; beyond it the least recently used idle pool is closed. */
  maxTransports: number;
  logger: Logger;
  /** Called once on each transport created, with its pool, e.g. to register nodemailer plugins. */
  prepare?: (transport: PooledTransport, pool: SMTPPool) => void;
}

/**
 * Pooled nodemailer transports, one per next hop (key), reused across deliveries so that
 * many recipients at one host share a few SMTP connections. Least recently used pools with
 * nothing in flight are closed once there are more than `maxTransports`; a pool still busy
 * is never closed early, so the cap can be exceeded while every pool is working.
 */
export class TransportPool {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly options: TransportPoolOptions) {}

  /** The transport for `key`, created from `create()` on first use. */
  get(key: string, create: () => SMTPPoolOptions): PooledTransport {
    if (this.closed) throw new Error('TransportPool is closed');
    const existing = this.entries.get(key);
    if (existing) {
      // Map keeps insertion order: re-inserting makes it the most recently used.
      this.entries.delete(key);
      this.entries.set(key, existing);
      return existing.transport;
    }
    const pool = new SMTPPool(create());
    const transport = nodemailer.createTransport(pool);
    this.options.prepare?.(transport, pool);
    // Pool resources report failures through the send callbacks; this only keeps an
    // unexpected transport-level 'error' from becoming an uncaught exception.
    transport.on('error', (error: Error) => this.options.logger.warn({ err: error, nextHop: key }, 'SMTP transport error'));
    this.entries.set(key, { pool, transport });
    this.evictIdle(key);
    return transport;
  }

  /** Number of open pools. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Closes every pool: idle connections at once, busy ones after their message. Messages
   * still queued in a pool fail, so stop delivering (await in-flight deliveries) first.
   */
  close(): void {
    this.closed = true;
    for (const { transport } of this.entries.values()) transport.close();
    this.entries.clear();
  }

  private evictIdle(keep: string): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.options.maxTransports) return;
      if (key === keep || entry.pool.pendingCount() > 0) continue;
      this.entries.delete(key);
      entry.transport.close();
    }
  }
}
