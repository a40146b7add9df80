/** The one send both scenarios use, for ours and for the baselines. */
export const SEND_BODY = {
  from: 'Bench <bench@example.test>',
  to: ['someone@example.test'],
  subject: 'Benchmark',
  html: '<p>Hello</p>',
  text: 'Hello',
} as const;

export const SEND_JSON = JSON.stringify(SEND_BODY);
