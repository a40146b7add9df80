export type Verdict = 'ok' | 'MISSED' | 'PENDING';

export interface TableRow {
  scenario: string;
  baseline: string;
  ours: string;
  ratio: number | undefined;
  target: number;
  verdict: Verdict;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** "9,800 req/s". */
export function rate(value: number, unit: string): string {
  return Number.isFinite(value) ? `${whole.format(value)} ${unit}` : '—';
}

export function verdictOf(ratio: number | undefined, target: number): Verdict {
  if (ratio === undefined || !Number.isFinite(ratio)) return 'PENDING';
  return ratio >= target ? 'ok' : 'MISSED';
}

/** The summary table, fixed-width columns. */
export function formatTable(rows: readonly TableRow[]): string {
  const header = ['scenario', 'baseline', 'mailroom', 'ratio', 'target', 'result'];
  const cells = rows.map((r) => [
    r.scenario,
    r.baseline,
    r.ours,
    r.ratio === undefined || !Number.isFinite(r.ratio) ? '—' : r.ratio.toFixed(2),
    `>= ${r.target.toFixed(2)}`,
    r.verdict,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('   ')
      .trimEnd();
  return [line(header), ...cells.map(line)].join('\n');
}
