import { Counter, type Registry } from 'prom-client';

/** Why a connection, recipient or message was refused; the `reason` label of the counters. */
export type RefusalReason =
  | 'per_ip_limit'
  | 'shutting_down'
  | 'unknown_recipient'
  | 'too_many_unknown_recipients'
  | 'size'
  | 'line_too_long'
  | 'aborted'
  | 'unavailable';

/** The MX's counters, on the ops server's /metrics. */
export function createInboundMetrics(registry: Registry) {
  const registers = [registry];
  return {
    connections: new Counter({ name: 'mailroom_inbound_smtp_connections_total', help: 'SMTP connections greeted.', registers }),
    connectionsRefused: new Counter({
      name: 'mailroom_inbound_smtp_connections_refused_total',
      help: 'SMTP connections refused at connect, by reason.',
      labelNames: ['reason'],
      registers,
    }),
    recipientsRefused: new Counter({
      name: 'mailroom_inbound_smtp_recipients_refused_total',
      help: 'RCPT TO commands refused, by reason.',
      labelNames: ['reason'],
      registers,
    }),
    messagesAccepted: new Counter({ name: 'mailroom_inbound_smtp_messages_accepted_total', help: 'Messages stored and answered 250.', registers }),
    messagesRefused: new Counter({
      name: 'mailroom_inbound_smtp_messages_refused_total',
      help: 'Messages refused after DATA (or lost mid-DATA), by reason.',
      labelNames: ['reason'],
      registers,
    }),
    bytesStored: new Counter({ name: 'mailroom_inbound_smtp_stored_bytes_total', help: 'Bytes of raw messages stored (once per message).', registers }),
  };
}

export type InboundMetrics = ReturnType<typeof createInboundMetrics>;
