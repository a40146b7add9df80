import { parser } from '@prometheus-io/lezer-promql';

/** One series selector in a PromQL expression: its metric name and the label names it matches on. */
export interface Selector {
  metric: string;
  labels: string[];
}

// Grafana's interval variables, replaced by a duration so the expression parses as PromQL.
const GRAFANA_VARIABLES = /\$__(rate_interval|interval|range)/g;

/**
 * Parses a PromQL expression with Prometheus's own grammar (@prometheus-io/lezer-promql, what
 * Prometheus's UI uses): its selectors, and a description of each syntax error.
 */
export function parsePromql(expression: string): { selectors: Selector[]; errors: string[] } {
  const expr = expression.replace(GRAFANA_VARIABLES, '5m');
  const selectors: Selector[] = [];
  const errors: string[] = [];
  const text = (node: { from: number; to: number }) => expr.slice(node.from, node.to);
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) errors.push(`syntax error at ${node.from}: "${expr.slice(Math.max(0, node.from - 20), node.from + 20)}"`);
      if (node.name !== 'VectorSelector') return;
      const name = node.node.getChild('Identifier');
      const labels = node.node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? [];
      if (name) selectors.push({ metric: text(name), labels: labels.map((m) => text(m.getChild('LabelName') ?? m)) });
    },
  });
  return { selectors, errors };
}

/**
 * The series a Prometheus text exposition offers, by sample name (a histogram's `_bucket`,
 * `_sum` and `_count` included), with the label names seen on each: from the `# TYPE` lines,
 * so a labelled metric nothing has incremented yet is there too.
 */
export function exposedSeries(exposition: string): Map<string, Set<string>> {
  const series = new Map<string, Set<string>>();
  const add = (name: string, labels: string[] = []) => {
    const known = series.get(name) ?? new Set<string>();
    for (const label of labels) known.add(label);
    series.set(name, known);
  };
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      const [, name, kind] = type as unknown as [string, string, string];
      if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) add(name + suffix, suffix === '_bucket' ? ['le'] : []);
      else if (kind === 'summary') for (const suffix of ['', '_sum', '_count']) add(name + suffix, suffix === '' ? ['quantile'] : []);
      else add(name);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+/.exec(line);
    if (sample) add(sample[1] as string, [...(sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)].map((m) => m[1] as string));
  }
  return series;
}

// Series Prometheus itself records for every scrape target, with the target's labels.
const SCRAPE_SERIES: ReadonlyMap<string, ReadonlySet<string>> = new Map([['up', new Set(['job', 'instance'])]]);

/** What in `expression` names a series nobody exposes, or a label that series never carries. */
export function unknownReferences(expression: string, exposed: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const { selectors, errors } = parsePromql(expression);
  const problems = [...errors];
  for (const { metric, labels } of selectors) {
    const known = exposed.get(metric) ?? SCRAPE_SERIES.get(metric);
    if (!known) problems.push(`${metric} is exported by no service`);
    else for (const label of labels) if (!known.has(label)) problems.push(`${metric} has no label ${label}`);
  }
  return problems;
}

/** One sample's value from a text exposition, by name and exact labels (in any order); undefined when absent. */
export function sampleValue(exposition: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort().join(',');
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => `${m[1]}="${m[2]}"`).sort().join(',');
    if (have === wanted) return Number(match[3]);
  }
  return undefined;
}
