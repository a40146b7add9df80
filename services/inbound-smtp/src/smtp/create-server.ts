import { type ByteBudget, type Logger, writePerTurn } from '@mailroom/core';
import type { SMTPServer, SMTPServerOptions } from 'smtp-server';
import { announcedSize, MAIL_PARAMETERS, RCPT_PARAMETERS, unsupportedParameter } from './check-parameters';
import type { ConnectionLimits } from './connection-limits';
import type { ExpectedMessages } from './expected-messages';
import type { MessageStore } from './message-store';
import type { InboundMetrics } from './metrics';
import { type Drain, SHUTTING_DOWN } from './drain';
import { handleData, type DataHandlerDeps } from './handle-data';
import { handleRcptTo } from './handle-rcpt-to';
import { MxSmtpServer } from './mx-server';
import type { RecipientResolver } from './resolve-recipient';
import { insufficientStorage, refusal } from './smtp-error';
import { Transactions } from './transactions';
import { UnknownRecipients } from './unknown-recipients';

// Recipients per message (DESIGN §7); the next one gets 452 4.5.3.
export const MAX_RECIPIENTS = 100;
// How long smtp-server waits for connections to go away after close(), in ms.
const CLOSE_TIMEOUT_MS = 2_000;

export interface MxServerOptions {
  /** The greeting's host name. */
  name: string;
  /** SIZE in bytes (INBOUND_MAX_MESSAGE_BYTES). */
  maxMessageBytes: number;
  /** PEM key and certificate; STARTTLS is offered only with them. */
  tls: { key: Buffer; cert: Buffer } | undefined;
  /** Expect a PROXY protocol header on every connection (SMTP_PROXY_PROTOCOL). */
  proxyProtocol: boolean;
  maxConnections: number;
  idleTimeoutMs: number;
  limits: ConnectionLimits;
  resolver: RecipientResolver;
  store: MessageStore;
  /** Message bytes the process may hold at once (INBOUND_MAX_BUFFERED_BYTES). */
  memory: ByteBudget;
  /** The sessions the store may expect a message from; kept up to date here. */
  expected: ExpectedMessages;
  drain: Drain;
  metrics: InboundMetrics;
  logger: Logger;
}

/**
 * The MX's smtp-server: EHLO offers SIZE, 8BITMIME, SMTPUTF8, PIPELINING, ENHANCEDSTATUSCODES
 * and STARTTLS when a certificate is configured; never AUTH. MAIL FROM and RCPT TO take only
 * the parameters of those extensions (555 otherwise). Commands and addresses are read by
 * MxSmtpServer (quoted local parts, 502 for commands not implemented). Handlers accept recipients
 * per DESIGN §7 and store each message before its 250. The server is built, not started.
 */
export function createMxServer(options: MxServerOptions): SMTPServer {
  const { limits, metrics, logger, drain, expected, memory } = options;
  const transactions = new Transactions();
  const unknown = new UnknownRecipients();
  const data: DataHandlerDeps = { store: options.store, drain, transactions, unknown, expected, memory, metrics, logger };
  const serverOptions: SMTPServerOptions = {
    name: options.name,
    banner: 'Mailroom',
    size: options.maxMessageBytes,
    // Over SIZE is 552 5.3.4 whatever onData says; onData stores nothing for it.
    rejectOversized: true,
    maxRecipients: MAX_RECIPIENTS,
    maxClients: options.maxConnections,
    socketTimeout: options.idleTimeoutMs,
    closeTimeout: CLOSE_TIMEOUT_MS,
    useProxy: options.proxyProtocol,
    hideENHANCEDSTATUSCODES: false,
    hideDSN: true,
    hideREQUIRETLS: true,
    authOptional: true,
    // WIZ, SHELL and KILL are sendmail jokes smtp-server answers (`200 Please pass`): unrecognized here.
    disabledCommands: ['AUTH', ...(options.tls ? [] : ['STARTTLS']), 'WIZ', 'SHELL', 'KILL'],
    hideSTARTTLS: !options.tls,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    // The client IP is logged and stored; a PTR lookup per connection buys nothing here.
    disableReverseLookup: true,
    // A client's FIN ends only its side: the replies still owed to it (a message's 250 after
    // its commit) are sent, and MxConnection then ends the connection (node's default would
    // end our side with the client's, dropping those replies).
    allowHalfOpen: true,
    logger: false,
    onConnect(session, callback) {
      if (drain.isDraining) {
        metrics.connectionsRefused.inc({ reason: 'shutting_down' });
        return callback(refusal(421, SHUTTING_DOWN.enhancedCode, SHUTTING_DOWN.text));
      }
      if (!limits.admit(session.id, session.remoteAddress)) {
        metrics.connectionsRefused.inc({ reason: 'per_ip_limit' });
        return callback(refusal(421, '4.7.0', 'Too many connections from your address; try again later.'));
      }
      metrics.connections.inc();
      expected.open(session.id);
      callback();
    },
    onClose(session) {
      limits.release(session.id);
      transactions.end(session.id);
      unknown.reset(session.id);
      expected.close(session.id);
    },
    onMailFrom(address, session, callback) {
      const refused = unsupportedParameter(address.args, MAIL_PARAMETERS);
      if (refused) return callback(refused);
      // A message announced (SIZE=, checked by smtp-server) or not that would not fit in the
      // message memory now is refused before its transaction, not after its last byte.
      if (!memory.fits(announcedSize(address.args))) {
        metrics.messagesRefused.inc({ reason: 'memory' });
        return callback(insufficientStorage());
      }
      transactions.begin(session.id);
      expected.active(session.id);
      callback();
    },
    onRcptTo(address, session, callback) {
      expected.active(session.id);
      const refused = unsupportedParameter(address.args, RCPT_PARAMETERS);
      if (refused) return callback(refused);
      handleRcptTo({ resolver: options.resolver, transactions, unknown, metrics, logger }, address.address, session.id).then(
        () => callback(),
        (err: Error) => callback(err),
      );
    },
    onData(stream, session, callback) {
      expected.active(session.id);
      // The reply is written inside the callback; a draining server then closes the session.
      handleData(data, stream, session).then(
        (reply) => {
          callback(null, reply);
          drain.afterReply(server, session.id);
        },
        (err: Error) => {
          callback(err);
          drain.afterReply(server, session.id);
        },
      );
    },
  };
  const server = new MxSmtpServer(serverOptions);
  // A client that pipelines gets its replies in one write (RFC 2920 §3.2).
  server.server.on('connection', writePerTurn);
  // Socket errors of single connections (resets, TLS failures) end those connections only.
  server.on('error', (err) => logger.debug({ err: err.message }, 'smtp connection error'));
  return server;
}
