import { Counter, Gauge, type Registry } from 'prom-client';
import type { ByteBudget } from '@mailroom/core';

// Why a connection, recipient or message is refused: the `reason` label of each counter.
const CONNECTION_REFUSALS = ['per_ip_limit', 'shutting_down'] as const;
const RECIPIENT_REFUSALS = ['unknown_recipient', 'domain_not_verified', 'too_many_unknown_recipients', 'unavailable'] as const;
const MESSAGE_REFUSALS = ['size', 'line_too_long', 'memory', 'aborted', 'unavailable'] as const;

/** Why a connection, recipient or message was refused; the `reason` label of the counters. */
export type RefusalReason = (typeof CONNECTION_REFUSALS | typeof RECIPIENT_REFUSALS | typeof MESSAGE_REFUSALS)[number];

/**
 * A counter by `reason` with every reason's series there from the start at 0: Prometheus's
 * rate() and increase() see a first refusal only as a rise from an earlier sample, and the
 * dashboard's refusal panels would show no data, not 0, on an MX that refused nothing yet
 * (test/deploy/prometheus-peer.test.ts).
 */
function refusalCounter(name: string, help: string, reasons: readonly RefusalReason[], registers: Registry[]): Counter<'reason'> {
  const counter = new Counter({ name, help, labelNames: ['reason'], registers });
  for (const reason of reasons) counter.inc({ reason }, 0);
  return counter;
}

/** The MX's counters, on the ops server's /metrics. */
export function createInboundMetrics(registry: Registry, memory: ByteBudget) {
  const registers = [registry];
  new Gauge({
    name: 'mailroom_inbound_smtp_buffered_bytes',
    help: 'Message bytes held in memory (being received or waiting for their commit); at INBOUND_MAX_BUFFERED_BYTES new messages get 452 4.3.1.',
    registers,
    collect() {
      this.set(memory.inUse);
    },
  });
  return {
    connections: new Counter({ name: 'mailroom_inbound_smtp_connections_total', help: 'SMTP connections greeted.', registers }),
    connectionsRefused: refusalCounter('mailroom_inbound_smtp_connections_refused_total', 'SMTP connections refused at connect, by reason.', CONNECTION_REFUSALS, registers),
    recipientsRefused: refusalCounter('mailroom_inbound_smtp_recipients_refused_total', 'RCPT TO commands refused, by reason.', RECIPIENT_REFUSALS, registers),
    messagesAccepted: new Counter({ name: 'mailroom_inbound_smtp_messages_accepted_total', help: 'Messages stored and answered 250.', registers }),
    messagesRefused: refusalCounter(
      'mailroom_inbound_smtp_messages_refused_total',
      'Messages refused after DATA (or lost mid-DATA; `memory` also at MAIL FROM), by reason.',
      MESSAGE_REFUSALS,
      registers,
    ),
    bytesStored: new Counter({ name: 'mailroom_inbound_smtp_stored_bytes_total', help: 'Bytes of raw messages stored (once per message).', registers }),
  };
}

export type InboundMetrics = ReturnType<typeof createInboundMetrics>;
