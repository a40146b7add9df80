import type { ByteBudget, Logger } from '@mailroom/core';
import type { ReceivedMessage } from '@mailroom/db';
import type { SMTPServerSession } from 'smtp-server';
import type { Readable } from 'node:stream';
import { buildCopies } from './build-copies';
import type { Drain } from './drain';
import type { ExpectedMessages } from './expected-messages';
import type { MessageStore } from './message-store';
import type { InboundMetrics, RefusalReason } from './metrics';
import { MAX_LINE_BYTES, receiveData } from './receive-data';
import { failureReply, insufficientStorage, smtpError } from './smtp-error';
import type { Transactions } from './transactions';
import type { UnknownRecipients } from './unknown-recipients';

export interface DataHandlerDeps {
  store: MessageStore;
  drain: Drain;
  transactions: Transactions;
  unknown: UnknownRecipients;
  expected: ExpectedMessages;
  memory: ByteBudget;
  metrics: InboundMetrics;
  logger: Logger;
}

const REFUSAL_REASON = { size: 'size', line: 'line_too_long', memory: 'memory', aborted: 'aborted' } as const satisfies Record<string, RefusalReason>;

/**
 * DATA: reads the message, stores one row per project (and per feedback address) in one
 * commit, and only then resolves with the 250 text. Resolving or rejecting is the reply; a
 * rejection is never a 5xx for an outage (`451 4.3.0`), and nothing is stored for a refused
 * message.
 */
export function handleData(deps: DataHandlerDeps, stream: Readable, session: SMTPServerSession): Promise<string> {
  return deps.drain.track(session.id, receiveAndStore(deps, stream, session));
}

async function receiveAndStore(deps: DataHandlerDeps, stream: Readable, session: SMTPServerSession): Promise<string> {
  const received = await receiveData(stream, { memory: deps.memory });
  if (!received.ok) {
    deps.metrics.messagesRefused.inc({ reason: REFUSAL_REASON[received.reason] });
    // Over SIZE: smtp-server answers 552 5.3.4 itself (rejectOversized), whatever this says.
    if (received.reason === 'size') return 'Message size exceeds fixed limit.';
    if (received.reason === 'line') throw smtpError(554, `Message has a line longer than ${MAX_LINE_BYTES} bytes.`);
    if (received.reason === 'memory') throw insufficientStorage();
    // The client is gone; nobody reads this.
    throw smtpError(451, 'Message not received in full.');
  }
  try {
    return await store(deps, received.raw, session);
  } finally {
    deps.memory.release(received.raw.length);
  }
}

/** The received message stored (one row per project), and the 250's text. */
async function store(deps: DataHandlerDeps, raw: Buffer, session: SMTPServerSession): Promise<string> {
  const { envelope } = session;
  const copies = buildCopies(deps.transactions.recipients(session.id, envelope.rcptTo.map((r) => r.address)));
  const first = copies[0];
  // smtp-server takes DATA only after an accepted RCPT, so this is a bug, not a client error.
  if (!first) throw failureReply(new Error('DATA without an accepted recipient'));
  const message: ReceivedMessage = {
    mailFrom: envelope.mailFrom ? envelope.mailFrom.address : '',
    remoteAddress: session.remoteAddress || null,
    helo: session.hostNameAppearsAs || null,
    raw,
    copies,
  };
  deps.expected.storing(session.id);
  try {
    await deps.store.store(message);
  } catch (err) {
    deps.metrics.messagesRefused.inc({ reason: 'unavailable' });
    deps.logger.error({ err, bytes: raw.length }, 'storing a received message failed');
    throw failureReply(err);
  } finally {
    deps.expected.answered(session.id);
  }
  deps.unknown.reset(session.id);
  deps.metrics.messagesAccepted.inc();
  deps.metrics.bytesStored.inc(raw.length);
  return `Ok: queued as ${first.id}`;
}
