import type { Server as HttpServer } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { listenOn, portErrorOf } from '@mailroom/core';
import type { SMTPServer } from 'smtp-server';
import { CaughtMessages } from './caught-messages';
import { createSmtpCatcher } from './smtp-catcher';
import { createViewer } from './viewer';

export interface DevMailboxOptions {
  smtpPort: number;
  httpPort: number;
  /** Loopback by default: the mailbox accepts anything and must not be reachable from a network. */
  host?: string;
  /** How many messages are kept in memory, newest first. */
  keep?: number;
  onCaught?: (subject: string, to: string[]) => void;
  /** Errors of client connections (a reset, a protocol error); they do not stop the mailbox. */
  onError?: (err: Error) => void;
}

async function listen(server: Server, port: number, host: string, flag: string): Promise<number> {
  await listenOn(server, port, host, flag);
  return (server.address() as AddressInfo).port;
}

/** A catch-all SMTP server and a web viewer of what it caught, for trying Mailroom locally. */
export class DevMailbox {
  private readonly messages: CaughtMessages;
  private readonly smtp: SMTPServer;
  private readonly viewer: HttpServer;
  /** `OUTBOUND_SMTP_URL` for Mailroom's sender; set by start(). */
  smtpUrl = '';
  /** Where the viewer answers; set by start(). */
  viewerUrl = '';

  constructor(private readonly options: DevMailboxOptions) {
    this.messages = new CaughtMessages(options.keep ?? 500);
    this.smtp = createSmtpCatcher(this.messages, options.onCaught ?? (() => {}));
    this.viewer = createViewer(this.messages);
    // smtp-server re-emits its sockets' and listener's errors; listen failures are handled in start().
    this.smtp.on('error', (err) => {
      if (!portErrorOf(err)) options.onError?.(err);
    });
  }

  async start(): Promise<void> {
    const host = this.options.host ?? '127.0.0.1';
    const smtpPort = await listen(this.smtp.server, this.options.smtpPort, host, '--smtp-port');
    const httpPort = await listen(this.viewer, this.options.httpPort, host, '--http-port').catch(async (err: unknown) => {
      await new Promise((resolve) => this.smtp.close(() => resolve(undefined)));
      throw err;
    });
    this.smtpUrl = `smtp://${host}:${smtpPort}`;
    this.viewerUrl = `http://${host}:${httpPort}`;
  }

  async stop(): Promise<void> {
    this.viewer.closeAllConnections();
    await Promise.all([
      new Promise((resolve) => this.smtp.close(() => resolve(undefined))),
      new Promise((resolve) => this.viewer.close(() => resolve(undefined))),
    ]);
  }
}
