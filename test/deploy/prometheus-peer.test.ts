import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { until } from '../support/until';
import {
  checkMetrics,
  grafanaExpression,
  promtool,
  type QueryResult,
  type RunningPrometheus,
  requirePrometheusBinaries,
  selectorTexts,
  startPrometheus,
} from './support/prometheus-tools';
import { doRealWork, type Mailroom, scrape, startMailroom } from './support/services-at-work';

/**
 * The operator surface (README "Metrics", k8s/monitoring) checked by Prometheus itself, an
 * independent peer of our own checks in metrics.test.ts: promtool lints every service's /metrics
 * and checks and unit-tests the alert rules; a real `prometheus` scrapes the five services while
 * they do real work, evaluates the rules, and answers every alert and dashboard expression.
 * Needs Debian's `prometheus` package (promtool and prometheus in /usr/bin).
 */

const ROOT = join(__dirname, '../..');
const rulesDocument = parseYaml(readFileSync(join(ROOT, 'k8s/monitoring/prometheus-rules.yaml'), 'utf8'));
const alerts: { alert: string; expr: string; for?: string; labels: Record<string, string>; annotations: Record<string, string> }[] = rulesDocument.spec.groups.flatMap(
  (g: any) => g.rules,
);
const dashboard = JSON.parse(readFileSync(join(ROOT, 'k8s/monitoring/mailroom-dashboard.json'), 'utf8'));
// The scrape interval of the Prometheus started here, and so of the Grafana data source reading it.
const SCRAPE_SECONDS = 1;

/**
 * promtool's naming lint findings on metrics we do not define, judged harmless and kept: prom-client's
 * default Node.js metrics (collectDefaultMetrics, prefixed with the service's name) export
 * `nodejs_active_{handles,requests,resources}_total` as gauges. They count what is open now, so
 * gauge is right and the `_total` is the library's naming; renaming them would break every
 * Node.js dashboard that knows them, for no gain.
 */
const ACCEPTED_LINT = /^mailroom_[a-z_]+_nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

/**
 * Dashboard targets with nothing to show after this work, by panel title and refId: none. (The
 * MX's refusal counters had no series until a first refusal, so its two refusal targets were
 * empty on a healthy MX; every reason now starts at 0.)
 */
const EMPTY_AFTER_WORK = new Set<string>();

let dir: string;
let rulesFile: string;

beforeAll(() => {
  requirePrometheusBinaries();
  dir = mkdtempSync(join(tmpdir(), 'mailroom-prometheus-'));
  // The PrometheusRule's spec is a plain Prometheus rules file.
  rulesFile = join(dir, 'mailroom-rules.yml');
  writeFileSync(rulesFile, toYaml({ groups: rulesDocument.spec.groups }));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the alert rules, by promtool', () => {
  test('when promtool checks the PrometheusRule\'s groups, then every rule is valid', () => {
    const result = promtool(['check', 'rules', rulesFile]);
    expect(result.output).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(result.code).toBe(0);
  });

  test('when a rule is broken, then promtool check rules fails it (the check is real)', () => {
    const broken = join(dir, 'broken-rules.yml');
    writeFileSync(broken, toYaml({ groups: [{ name: 'broken', rules: [{ alert: 'Broken', expr: 'sum(rate(mailroom_deliveries_total[5m])' }] }] }));
    const result = promtool(['check', 'rules', broken]);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/parse error|unclosed/i);
  });

  describe('unit tests of the alerts on synthetic series (promtool test rules)', () => {
    const tests = ruleUnitTests();

    test('when each alert\'s condition holds long enough, then it fires with its labels and annotations; when healthy, it does not', () => {
      const result = runRuleTests(rulesFile, tests);
      expect(result.output).toContain('SUCCESS');
      expect(result.code).toBe(0);
    });

    test('then every alert is unit tested, firing and not firing', () => {
      const firing = new Set<string>();
      const quiet = new Set<string>();
      for (const group of tests.tests) {
        for (const t of group.alert_rule_test) (t.exp_alerts.length > 0 ? firing : quiet).add(t.alertname);
      }
      const names = alerts.map((a) => a.alert);
      expect([...firing].sort()).toEqual([...names].sort());
      expect([...quiet].sort()).toEqual([...names].sort());
    });

    // A broken threshold, aggregation, label or template must fail the unit tests.
    test.each([
      ['a bounce threshold', '/ sum(increase(mailroom_deliveries_total{source="attempt", outcome=~"delivered|bounced"}[1h])) > 0.04', '/ sum(increase(mailroom_deliveries_total{source="attempt", outcome=~"delivered|bounced"}[1h])) > 0.4'],
      ['the complaint volume guard', 'outcome="delivered"}[24h])) >= 1000', 'outcome="delivered"}[24h])) >= 100000000'],
      ['max by (queue) as sum', 'max by (queue) (mailroom_queue_oldest_due_age_seconds) > 300', 'sum by (queue) (mailroom_queue_oldest_due_age_seconds) > 300'],
      ['a label in an annotation', '({{ $labels.reason }})', '({{ $labels.kind }})'],
      ['the send reconciler excluded', 'mailroom_reconciler_recovered_total{kind!="send"}', 'mailroom_reconciler_recovered_total{kind=~".+"}'],
      ['a for duration', 'for: 15m\n', 'for: 1h\n'],
    ])('when the rules have %s broken, then the unit tests fail', (_what, from, to) => {
      const text = readFileSync(rulesFile, 'utf8');
      expect(text).toContain(from);
      const mutated = join(dir, 'mutated-rules.yml');
      const mutatedText = text.replace(from, to);
      writeFileSync(mutated, mutatedText);
      // Only the groups that test an alert the mutation changed: when some of the unit tests
      // fail, the whole set fails too, and the other groups (promtool's slowest among them)
      // would pass or fail exactly as they do on the intact rules.
      const changed = changedAlerts(text, mutatedText);
      expect(changed.length).toBeGreaterThan(0);
      const relevant = { tests: tests.tests.filter((group) => group.alert_rule_test.some((t) => changed.includes(t.alertname))) };
      expect(relevant.tests.length).toBeGreaterThan(0);
      const result = runRuleTests(mutated, relevant);
      expect(result.code).not.toBe(0);
      expect(result.output).toMatch(/FAILED/);
    });
  });
});

describe('the services at work, scraped by Prometheus', () => {
  let m: Mailroom;
  let prometheus: RunningPrometheus;
  let urls: Record<string, string>;

  beforeAll(async () => {
    m = await startMailroom('prometheus_peer');
    urls = m.metricsUrls();
    prometheus = await startPrometheus({ dir, targets: urls, ruleFiles: [rulesFile], scrapeIntervalSeconds: SCRAPE_SECONDS });
    // Scraped before the work, so rate() and increase() see every counter's start.
    await until(async () => allTargetsUp(prometheus), 60_000, 'every target scraped and up', 250);
    await doRealWork(m);
  }, 180_000);

  afterAll(async () => {
    await prometheus?.stop();
    await m?.stop();
  });

  test('when promtool checks each service\'s /metrics, then the exposition is valid and follows Prometheus\'s naming rules', async () => {
    const findings: string[] = [];
    for (const [service, url] of Object.entries(urls)) {
      const result = checkMetrics(await scrape(url));
      // 1: not parseable at all; 3: lint findings only.
      if (result.code !== 0 && result.code !== 3) findings.push(`${service}: promtool exited ${result.code}: ${result.output}`);
      for (const finding of result.findings) if (!ACCEPTED_LINT.test(finding)) findings.push(`${service}: ${finding}`);
    }
    expect(findings).toEqual([]);
  });

  test('when an exposition breaks the naming rules or the format, then promtool says so (the check is real)', () => {
    const lint = checkMetrics('# HELP mailroom_sent Sent.\n# TYPE mailroom_sent counter\nmailroom_sent 1\n');
    expect(lint.code).toBe(3);
    expect(lint.findings.join('\n')).toContain('counter metrics should have "_total" suffix');
    expect(checkMetrics('# TYPE x counter\n# TYPE x counter\nx 1\n').code).toBe(1);
  });

  test('then every service is a target that is up', async () => {
    const { data } = await prometheus.api<{ activeTargets: { labels: { job: string }; health: string; lastError: string }[] }>('/api/v1/targets');
    expect(data.activeTargets.map((t) => t.labels.job).sort()).toEqual(Object.keys(urls).sort());
    await until(async () => allTargetsUp(prometheus), 60_000, 'every target up', 250);
  });

  test('then Prometheus holds one type and help for each Mailroom metric across the services, as the README\'s table lists them', async () => {
    const { data } = await prometheus.api<Record<string, { type: string; help: string }[]>>('/api/v1/metadata');
    const ours = Object.entries(data).filter(([name]) => name.startsWith('mailroom_') && !PROCESS_METRIC.test(name));
    // A metric exported by several services (deliveries, reconcilers, backlog) is declared alike by each.
    expect(ours.filter(([, entries]) => entries.length !== 1).map(([name, entries]) => `${name}: ${JSON.stringify(entries)}`)).toEqual([]);
    const exported = Object.fromEntries(ours.map(([name, [entry]]) => [name, entry?.type]));
    expect(exported).toEqual(readmeMetricTypes());
  });

  test('when Prometheus runs every alert\'s expression, then each parses, and every series it selects has data', async () => {
    const problems: string[] = [];
    const selectors = new Map<string, string>();
    for (const { alert, expr } of alerts) {
      const answer = await prometheus.query(expr);
      if (answer.status !== 'success') problems.push(`${alert}: ${answer.errorType}: ${answer.error}`);
      for (const selector of selectorTexts(expr)) selectors.set(`${alert}: ${selector}`, selector);
    }
    expect(selectors.size).toBeGreaterThan(alerts.length);
    for (const key of await withoutData(prometheus, selectors)) problems.push(`${key} has no data`);
    expect(problems).toEqual([]);
  }, 120_000);

  test('when Prometheus evaluates the rules on the work done, then every rule is healthy, the disabled endpoint and the recovered message fire, and nothing else', async () => {
    type Rule = { name: string; health: string; lastError?: string; state: string };
    let rules: Rule[] = [];
    await until(
      async () => {
        const { data } = await prometheus.api<{ groups: { rules: Rule[] }[] }>('/api/v1/rules');
        rules = data.groups.flatMap((g) => g.rules);
        return rules.length > 0 && rules.every((r) => r.health !== 'unknown');
      },
      60_000,
      'every rule evaluated',
      250,
    );
    expect(rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.health} ${r.lastError}`)).toEqual([]);
    expect(rules.map((r) => r.name).sort()).toEqual(alerts.map((a) => a.alert).sort());

    // The 410 disabled one endpoint; the inbound reconciler re-enqueued the stranded message.
    const expected = ['MailroomReconcilerFoundLostWork{kind="inbound"} firing', 'MailroomWebhookEndpointDisabled{reason="gone"} firing'];
    let active: string[] = [];
    await until(
      async () => {
        const { data } = await prometheus.api<{ alerts: { labels: Record<string, string>; state: string }[] }>('/api/v1/alerts');
        active = data.alerts
          .map(({ labels: { alertname, severity: _severity, ...rest }, state }) => `${alertname}{${Object.entries(rest).map(([k, v]) => `${k}="${v}"`).join(',')}} ${state}`)
          .sort();
        return JSON.stringify(active) === JSON.stringify(expected);
      },
      60_000,
      'the expected alerts, and only them',
      250,
    ).catch((err: Error) => {
      throw new Error(`${err.message}: active alerts ${JSON.stringify(active)}`);
    });
    expect(active).toEqual(expected);
  }, 120_000);

  test('when Prometheus runs every dashboard target as Grafana sends it, then each parses, and each that the work fed has data', async () => {
    const datasourceVariables = dashboard.templating.list.filter((v: any) => v.type === 'datasource').map((v: any) => v.name);
    const rangeSeconds = grafanaRangeSeconds(dashboard.time.from);
    const panels: any[] = dashboard.panels.flatMap((p: any) => [p, ...(p.panels ?? [])]);
    const targets = panels.flatMap((p) => (p.targets ?? []).map((t: any) => ({ key: `${p.title}/${t.refId}`, expr: grafanaExpression(t.expr, { rangeSeconds, scrapeIntervalSeconds: SCRAPE_SECONDS, datasourceVariables }) })));
    expect(targets.length).toBeGreaterThan(15);
    for (const key of EMPTY_AFTER_WORK) expect(targets.map((t) => t.key)).toContain(key);
    const problems: string[] = [];
    const fed = new Map<string, string>();
    for (const { key, expr } of targets) {
      if (expr.includes('$')) problems.push(`${key}: a variable is left in: ${expr}`);
      const answer = await prometheus.query(expr);
      if (answer.status !== 'success') problems.push(`${key}: ${answer.errorType}: ${answer.error}: ${expr}`);
      else if (!EMPTY_AFTER_WORK.has(key)) fed.set(key, expr);
    }
    for (const key of await withoutData(prometheus, fed)) problems.push(`${key}: no data: ${fed.get(key)}`);
    expect(problems).toEqual([]);
  }, 120_000);
});

/** The process and Node.js metrics prom-client exports for each service, prefixed with its name. */
const PROCESS_METRIC = /^mailroom_(gateway|sender|webhook_dispatcher|inbound_smtp|tracking)_(process|nodejs)_/;

/** The README's Metrics table: metric name → type. */
function readmeMetricTypes(): Record<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const rows = [...readme.matchAll(/^\| `(mailroom_[a-z_]+)` \| (counter|gauge|histogram|summary) \|/gm)];
  return Object.fromEntries(rows.map((r) => [r[1] as string, r[2] as string]));
}

/** Every target's last scrape succeeded. */
async function allTargetsUp(prometheus: RunningPrometheus): Promise<boolean> {
  const { data } = await prometheus.api<{ activeTargets: { health: string }[] }>('/api/v1/targets');
  return data.activeTargets.length > 0 && data.activeTargets.every((t) => t.health === 'up');
}

/**
 * The keys of `expressions` (key → PromQL) that return no sample, polled for a while before
 * giving up on them (a short rate window may fall between two scrapes on a busy machine).
 */
async function withoutData(prometheus: RunningPrometheus, expressions: ReadonlyMap<string, string>): Promise<string[]> {
  let missing = [...expressions.keys()];
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answers = await Promise.all(missing.map(async (key) => [key, await prometheus.query(expressions.get(key) as string)] as const));
    missing = answers.filter(([, answer]) => answer.status !== 'success' || resultSize(answer.data) === 0).map(([key]) => key);
    if (missing.length === 0 || Date.now() > deadline) return missing;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function resultSize(data: QueryResult): number {
  return data.resultType === 'scalar' || data.resultType === 'string' ? 1 : (data.result as unknown[]).length;
}

/** A dashboard's `time.from` (`now-6h`) in seconds. */
function grafanaRangeSeconds(from: string): number {
  const match = /^now-(\d+)([smhdw])$/.exec(from);
  if (!match) throw new Error(`unexpected dashboard time range ${from}`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }[match[2] as 's' | 'm' | 'h' | 'd' | 'w'];
}

// promtool test rules.

interface AlertTest {
  eval_time: string;
  alertname: string;
  exp_alerts: { exp_labels: Record<string, string>; exp_annotations: Record<string, string> }[];
}

interface RuleTestGroup {
  name: string;
  interval: string;
  input_series: { series: string; values: string }[];
  alert_rule_test: AlertTest[];
}

/** The alerts whose rule (expression, duration, labels or annotations) differs between two rules files' texts. */
function changedAlerts(before: string, after: string): string[] {
  const rules = (text: string) => new Map<string, string>((parseYaml(text).groups as { rules: { alert: string }[] }[]).flatMap((g) => g.rules).map((r) => [r.alert, JSON.stringify(r)]));
  const old = rules(before);
  return [...rules(after)].filter(([alert, rule]) => old.get(alert) !== rule).map(([alert]) => alert);
}

function runRuleTests(rules: string, tests: { tests: RuleTestGroup[] }) {
  const file = join(dir, 'mailroom-rules.test.yml');
  writeFileSync(file, toYaml({ rule_files: [rules], evaluation_interval: '1m', ...tests }));
  return promtool(['test', 'rules', file]);
}

/** What one rendered template value of an alert is expected to read. */
interface Rendered {
  value?: string;
  duration?: string;
  percentage?: string;
}

/**
 * An alert expected firing: its labels (the rule's, and `labels`) and its annotations rendered
 * from the rule's templates, `{{ $labels.x }}` from `labels` and `{{ $value … }}` as given, so a
 * template naming a label the alert lacks fails.
 */
function firing(alertname: string, labels: Record<string, string>, rendered: Rendered = {}): AlertTest['exp_alerts'][number] {
  const rule = alerts.find((a) => a.alert === alertname);
  if (!rule) throw new Error(`no alert ${alertname}`);
  const render = (template: string) =>
    template.replace(/\{\{\s*(.*?)\s*\}\}/g, (_whole, inner: string) => {
      const label = /^\$labels\.([a-zA-Z_]+)$/.exec(inner);
      if (label) return labels[label[1] as string] ?? '';
      const given = { '$value': rendered.value, '$value | humanizeDuration': rendered.duration, '$value | humanizePercentage': rendered.percentage }[inner];
      if (given === undefined) throw new Error(`${alertname}: no expected rendering for {{ ${inner} }}`);
      return given;
    });
  return {
    exp_labels: { ...rule.labels, ...labels },
    exp_annotations: Object.fromEntries(Object.entries(rule.annotations).map(([k, v]) => [k, render(v)])),
  };
}

/** One evaluation of one alert: the alerts expected firing then (none: it must not fire). */
function alertTest(eval_time: string, alertname: string, ...exp_alerts: AlertTest['exp_alerts']): AlertTest {
  return { eval_time, alertname, exp_alerts };
}

/**
 * Synthetic series for every alert, one group per situation: each alert must fire, with its
 * labels and rendered annotations, when its condition has held for its `for`, and stay quiet when
 * healthy, below its threshold, or on too little mail to judge. Counters run for their whole
 * window before the evaluation times, so increase() is exact. Two replicas of a worker report
 * the same backlog; feedback outcomes come from inbound-smtp beside the sender's attempts.
 */
function ruleUnitTests(): { tests: RuleTestGroup[] } {
  const deliveries = (outcome: string, source: string, values: string) => ({
    series: `mailroom_deliveries_total{job="${source === 'attempt' ? 'sender' : 'inbound-smtp'}",outcome="${outcome}",source="${source}"}`,
    values,
  });
  const backlog = {
    name: 'backlog: the send queue grows and waits, its readings fail; the dispatcher keeps up',
    interval: '1m',
    input_series: [
      ...['sender-a', 'sender-b'].flatMap((instance) => [
        { series: `mailroom_queue_due_items{instance="${instance}",job="sender",queue="send"}`, values: '0+100x60' },
        { series: `mailroom_queue_oldest_due_age_seconds{instance="${instance}",job="sender",queue="send"}`, values: '0+60x60' },
      ]),
      { series: 'mailroom_queue_backlog_read_failures_total{instance="sender-a",job="sender",queue="send"}', values: '0+1x60' },
      { series: 'mailroom_queue_backlog_read_failures_total{instance="sender-b",job="sender",queue="send"}', values: '0+0x60' },
      { series: 'mailroom_queue_due_items{instance="dispatcher-a",job="webhook-dispatcher",queue="webhook-deliveries"}', values: '5+0x60' },
      { series: 'mailroom_queue_oldest_due_age_seconds{instance="dispatcher-a",job="webhook-dispatcher",queue="webhook-deliveries"}', values: '30+0x60' },
      // One failed reading is not an alert.
      { series: 'mailroom_queue_backlog_read_failures_total{instance="dispatcher-a",job="webhook-dispatcher",queue="webhook-deliveries"}', values: '0+0x10 1+0x49' },
    ],
    alert_rule_test: [
      // Over 1000 from 11m, rising: pending until 26m. Waiting over 5 min from 6m: fires at 16m.
      alertTest('20m', 'MailroomBacklogGrowing'),
      alertTest('20m', 'MailroomOldestDueWorkWaiting', firing('MailroomOldestDueWorkWaiting', { queue: 'send' }, { duration: '20m 0s' })),
      alertTest('20m', 'MailroomOldestDueWorkStuck'),
      alertTest('20m', 'MailroomBacklogUnreadable', firing('MailroomBacklogUnreadable', { queue: 'send' }, { value: '10' })),
      alertTest('45m', 'MailroomBacklogGrowing', firing('MailroomBacklogGrowing', { queue: 'send' }, { value: '4500' })),
      alertTest('45m', 'MailroomOldestDueWorkWaiting', firing('MailroomOldestDueWorkWaiting', { queue: 'send' }, { duration: '45m 0s' })),
      alertTest('45m', 'MailroomOldestDueWorkStuck', firing('MailroomOldestDueWorkStuck', { queue: 'send' }, { duration: '45m 0s' })),
    ],
  };
  const healthyBacklog = {
    name: 'backlog: a steady small backlog, fresh',
    interval: '1m',
    input_series: [
      { series: 'mailroom_queue_due_items{instance="sender-a",job="sender",queue="send"}', values: '800+0x60' },
      { series: 'mailroom_queue_oldest_due_age_seconds{instance="sender-a",job="sender",queue="send"}', values: '120+0x60' },
      { series: 'mailroom_queue_backlog_read_failures_total{instance="sender-a",job="sender",queue="send"}', values: '0+0x60' },
    ],
    alert_rule_test: ['MailroomBacklogGrowing', 'MailroomOldestDueWorkWaiting', 'MailroomOldestDueWorkStuck', 'MailroomBacklogUnreadable'].map((name) => alertTest('45m', name)),
  };
  // 100 attempts a minute (deferrals are not attempts judged), `bounced` of them bounced at once and as many reported later.
  const bounces = (name: string, bounced: number, expect: AlertTest[]) => ({
    name,
    interval: '1m',
    input_series: [
      deliveries('delivered', 'attempt', `0+${100 - bounced}x130`),
      deliveries('bounced', 'attempt', `0+${bounced}x130`),
      deliveries('bounced', 'feedback', `0+${bounced}x130`),
      deliveries('deferred', 'attempt', '0+50x130'),
    ],
    alert_rule_test: expect,
  });
  // `delivered` per 10 minutes from 0, judged 4 hours in (a day's window not yet full: increase()
  // extrapolates numerator and denominator alike); complaints from reports and the sender's sandbox.
  const complaints = (name: string, perThousand: [number, number], delivered: number, expect: AlertTest[]) => ({
    name,
    interval: '10m',
    input_series: [
      deliveries('delivered', 'attempt', `0+${delivered}x30`),
      deliveries('complained', 'feedback', `0+${perThousand[0]}x30`),
      { series: 'mailroom_deliveries_total{job="sender",outcome="complained",source="feedback"}', values: `0+${perThousand[1]}x30` },
    ],
    alert_rule_test: expect,
  });
  const SERVICES_UP = ['gateway', 'sender', 'inbound-smtp', 'tracking', 'webhook-dispatcher'];
  const availability = {
    name: 'availability: every service up, then the senders fail their scrapes at 11m and the dispatchers vanish at 21m',
    interval: '1m',
    input_series: [
      ...SERVICES_UP.filter((job) => job !== 'sender' && job !== 'webhook-dispatcher').map((job) => ({ series: `up{job="${job}",instance="${job}-a"}`, values: '1x60' })),
      ...['sender-a', 'sender-b'].map((instance) => ({ series: `up{job="sender",instance="${instance}"}`, values: '1x10 0x50' })),
      { series: 'up{job="webhook-dispatcher",instance="dispatcher-a"}', values: '1x20 _x40' },
    ],
    alert_rule_test: [
      alertTest('10m', 'MailroomServiceDown'),
      // Down from 11m, firing after its 5 minutes.
      alertTest('14m', 'MailroomServiceDown'),
      alertTest('17m', 'MailroomServiceDown', firing('MailroomServiceDown', { job: 'sender' })),
      // The dispatchers' series gone after 21m (stale after 5 more), then the 5 minutes.
      alertTest('40m', 'MailroomServiceDown', firing('MailroomServiceDown', { job: 'sender' }), firing('MailroomServiceDown', { job: 'webhook-dispatcher' })),
    ],
  };
  return {
    tests: [
      availability,
      backlog,
      healthyBacklog,
      bounces('bounces: 6% of attempts', 3, [
        alertTest('2h', 'MailroomBounceRateHigh', firing('MailroomBounceRateHigh', {}, { percentage: '6%' })),
        alertTest('2h', 'MailroomBounceRateCritical'),
      ]),
      bounces('bounces: 12% of attempts', 6, [
        alertTest('2h', 'MailroomBounceRateHigh', firing('MailroomBounceRateHigh', {}, { percentage: '12%' })),
        alertTest('2h', 'MailroomBounceRateCritical', firing('MailroomBounceRateCritical', {}, { percentage: '12%' })),
      ]),
      bounces('bounces: 2% of attempts', 1, [alertTest('2h', 'MailroomBounceRateHigh'), alertTest('2h', 'MailroomBounceRateCritical')]),
      {
        name: 'bounces: a third of 90 attempts an hour, too few to judge',
        interval: '1m',
        input_series: [deliveries('delivered', 'attempt', '0+1x130'), deliveries('bounced', 'attempt', '0+0.5x130')],
        alert_rule_test: [alertTest('2h', 'MailroomBounceRateHigh'), alertTest('2h', 'MailroomBounceRateCritical')],
      },
      complaints('complaints: 0.2% of delivered mail', [1, 1], 1000, [
        alertTest('4h', 'MailroomComplaintRateHigh', firing('MailroomComplaintRateHigh', {}, { percentage: '0.2%' })),
        alertTest('4h', 'MailroomComplaintRateCritical'),
      ]),
      complaints('complaints: 0.5% of delivered mail', [3, 2], 1000, [
        alertTest('4h', 'MailroomComplaintRateHigh', firing('MailroomComplaintRateHigh', {}, { percentage: '0.5%' })),
        alertTest('4h', 'MailroomComplaintRateCritical', firing('MailroomComplaintRateCritical', {}, { percentage: '0.5%' })),
      ]),
      complaints('complaints: 0.05% of delivered mail', [1, 0], 2000, [alertTest('4h', 'MailroomComplaintRateHigh'), alertTest('4h', 'MailroomComplaintRateCritical')]),
      complaints('complaints: 20% of 30 delivered an hour, too few to judge', [1, 0], 5, [alertTest('4h', 'MailroomComplaintRateHigh'), alertTest('4h', 'MailroomComplaintRateCritical')]),
      {
        name: 'webhooks: an endpoint answered 410 at 21m',
        interval: '1m',
        input_series: [
          { series: 'mailroom_webhook_endpoints_disabled_total{job="webhook-dispatcher",reason="gone"}', values: '0+0x20 1+0x40' },
          { series: 'mailroom_webhook_endpoints_disabled_total{job="webhook-dispatcher",reason="failing"}', values: '0+0x60' },
        ],
        alert_rule_test: [
          alertTest('15m', 'MailroomWebhookEndpointDisabled'),
          alertTest('25m', 'MailroomWebhookEndpointDisabled', firing('MailroomWebhookEndpointDisabled', { reason: 'gone' })),
          // 15 minutes later it is history.
          alertTest('45m', 'MailroomWebhookEndpointDisabled'),
        ],
      },
      {
        name: 'reconcilers: the inbound one finds a message at 21m; the send one re-tells 5 a minute against 100 attempts',
        interval: '1m',
        input_series: [
          { series: 'mailroom_reconciler_recovered_total{job="inbound-smtp",kind="inbound"}', values: '0+0x20 1+0x40' },
          { series: 'mailroom_reconciler_recovered_total{job="webhook-dispatcher",kind="webhook-deliveries"}', values: '0+0x60' },
          { series: 'mailroom_reconciler_recovered_total{job="sender",kind="send"}', values: '0+5x60' },
          deliveries('delivered', 'attempt', '0+100x60'),
        ],
        alert_rule_test: [
          alertTest('25m', 'MailroomReconcilerFoundLostWork', firing('MailroomReconcilerFoundLostWork', { kind: 'inbound' }, { value: '1' })),
          // The send reconciler's finds are not this alert's, however many.
          alertTest('45m', 'MailroomReconcilerFoundLostWork'),
          alertTest('25m', 'MailroomSendReconcilerFoundLostWork', firing('MailroomSendReconcilerFoundLostWork', {}, { value: '75' })),
        ],
      },
      {
        name: 'reconcilers: the send one re-tells 5 a minute behind 1000 attempts a minute (a long backlog)',
        interval: '1m',
        input_series: [
          { series: 'mailroom_reconciler_recovered_total{job="sender",kind="send"}', values: '0+5x60' },
          { series: 'mailroom_reconciler_recovered_total{job="inbound-smtp",kind="inbound"}', values: '0+0x60' },
          deliveries('delivered', 'attempt', '0+1000x60'),
        ],
        alert_rule_test: [alertTest('45m', 'MailroomSendReconcilerFoundLostWork'), alertTest('45m', 'MailroomReconcilerFoundLostWork')],
      },
    ],
  };
}
