/** The one send both scenarios use, for ours and for the baselines. */
export const SEND_BODY = {
  from: 'Bench <bench@example.test>',
  to: ['someone@example.test'],
  subject: 'Benchmark',
  html: '<p>Hello</p>',
  text: 'Hello',
} as const;

export const SEND_JSON = JSON.stringify(SEND_BODY);

/** The `data` of the webhooks scenario's events (an `email.delivered` of the send above). */
export const WEBHOOK_EVENT_DATA = {
  email_id: 'em_01JBENCH00000000000000000',
  from: SEND_BODY.from,
  to: SEND_BODY.to,
  subject: SEND_BODY.subject,
  tags: [],
  recipient: SEND_BODY.to[0],
  attempt: 1,
  smtp: { code: 250, enhanced_code: '2.0.0', message: 'OK queued' },
} as const;

/** The body of one webhook POST, as the dispatcher presents an event (DESIGN §5). */
export function webhookBody(eventId: string): string {
  return JSON.stringify({ id: eventId, type: 'email.delivered', created_at: new Date().toISOString(), data: WEBHOOK_EVENT_DATA });
}
