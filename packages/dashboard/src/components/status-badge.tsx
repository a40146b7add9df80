const TONES: Record<string, 'good' | 'bad' | 'warn' | 'neutral'> = {
  delivered: 'good',
  verified: 'good',
  pass: 'good',
  enabled: 'good',
  success: 'good',
  bounced: 'bad',
  complained: 'bad',
  failed: 'bad',
  fail: 'bad',
  suppressed: 'bad',
  disabled: 'bad',
  delivery_delayed: 'warn',
  pending: 'warn',
  softfail: 'warn',
  temperror: 'warn',
};

/** A status as a coloured pill with its name in words (the colour is never the only signal). */
export function StatusBadge({ status }: { status: string | null | undefined }) {
  const value = status ?? 'unknown';
  return <span class={`badge badge-${TONES[value] ?? 'neutral'}`}>{value.replace(/_/g, ' ')}</span>;
}
