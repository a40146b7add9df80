import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dueCountQuery } from '@mailroom/db';
import { parse as parseYaml } from 'yaml';
import { until } from '../../services/webhook-dispatcher/test/support';
import { renderKustomization } from './support/kubernetes';
import { exposedSeries, sampleValue, unknownReferences } from './support/promql';
import {
  bounceReturnPath,
  type Mailroom,
  openTrackedEmail,
  receiveMail,
  scrape,
  scrapeUntil,
  sendBounceReport,
  sendHeld,
  sendOthersAndRelease,
  startMailroom,
  strandReceivedMessage,
} from './support/services-at-work';

/**
 * Operator metrics (README "Metrics"), through real work: every service started the way its
 * main.ts starts it, on one database, sends through a real SMTP sink, webhooks to a real
 * receiver, a message into the real MX, a pixel fetched from the tracking service; then each
 * service's /metrics is scraped over HTTP. The Grafana dashboard and the alert rules in
 * k8s/monitoring are checked against the series those scrapes expose. (The services and the
 * work are in ./support/services-at-work, shared with prometheus-peer.test.ts.)
 */

const ROOT = join(__dirname, '../..');
// Grafana's variable for the Prometheus data source, chosen when the dashboard is imported.
const DATASOURCE = '$' + '{datasource}';

describe('operator metrics', () => {
  let m: Mailroom;
  let urls: ReturnType<Mailroom['metricsUrls']>;

  beforeAll(async () => {
    m = await startMailroom('metrics');
    urls = m.metricsUrls();
  }, 90_000);

  afterAll(async () => {
    await m?.stop();
  });

  test('when sends wait at a slow MX, then the sender reports them as due work; once answered, its outcomes, SMTP latency and a drained backlog', async () => {
    const held = await sendHeld(m);
    // Due (and being worked on): counted from PostgreSQL whatever Redis holds.
    let metrics = await scrapeUntil(urls.sender, 'mailroom_queue_due_items', { queue: 'send' }, 3);
    const age = sampleValue(metrics, 'mailroom_queue_oldest_due_age_seconds', { queue: 'send' }) as number;
    expect(age).toBeGreaterThan(0);
    expect(age).toBeLessThan(60);

    await sendOthersAndRelease(m, held);
    metrics = await scrapeUntil(urls.sender, 'mailroom_queue_due_items', { queue: 'send' }, 0);

    // Three held and ok@ through SMTP, complained@ simulated: five delivered; one 550 5.1.1.
    expect(sampleValue(metrics, 'mailroom_deliveries_total', { outcome: 'delivered', source: 'attempt' })).toBe(5);
    expect(sampleValue(metrics, 'mailroom_deliveries_total', { outcome: 'bounced', source: 'attempt' })).toBe(1);
    expect(sampleValue(metrics, 'mailroom_deliveries_total', { outcome: 'complained', source: 'feedback' })).toBe(1);
    expect(sampleValue(metrics, 'mailroom_deliveries_total', { outcome: 'deferred', source: 'attempt' })).toBe(0);
    // Only real SMTP transactions are timed: the sandbox address is not one.
    expect(sampleValue(metrics, 'mailroom_smtp_transaction_duration_seconds_count', { result: 'delivered' })).toBe(4);
    expect(sampleValue(metrics, 'mailroom_smtp_transaction_duration_seconds_count', { result: 'bounced' })).toBe(1);
    // The held ones waited for release: the slowest bucket below a minute holds them all, the fastest does not.
    expect(sampleValue(metrics, 'mailroom_smtp_transaction_duration_seconds_bucket', { result: 'delivered', le: '60' })).toBe(4);
    expect(sampleValue(metrics, 'mailroom_sender_process_cpu_seconds_total')).toBeGreaterThan(0);

    const gateway = await scrape(urls.gateway);
    expect(sampleValue(gateway, 'mailroom_http_requests_total', { method: 'POST', route: '/emails', status: '200' })).toBe(6);
  }, 120_000);

  test('when the tracked email is opened by a person and a bad token is fetched, then tracking counts each by route and outcome', async () => {
    const opened = await openTrackedEmail(m);
    expect(opened.pixel.startsWith(`${m.tracking.url}/o/`)).toBe(true);
    expect(opened).toMatchObject({ person: 200, proxy: 200, badToken: 404 });
    const metrics = await scrape(urls.tracking);
    expect(sampleValue(metrics, 'mailroom_tracking_requests_total', { route: 'open', outcome: 'ok' })).toBe(1);
    expect(sampleValue(metrics, 'mailroom_tracking_requests_total', { route: 'open', outcome: 'bot' })).toBe(1);
    expect(sampleValue(metrics, 'mailroom_tracking_requests_total', { route: 'open', outcome: 'not_found' })).toBe(1);
  });

  test('when a message arrives for a route and another for nobody, then the MX counts the accept and the refusal, and processing the message', async () => {
    const received = await receiveMail(m);
    expect(received.accepted).toBe(0);
    expect(received.refused).not.toBe(0);
    const metrics = await scrapeUntil(urls['inbound-smtp'], 'mailroom_inbound_processed_total', { result: 'stored' }, 1);
    expect(sampleValue(metrics, 'mailroom_inbound_smtp_messages_accepted_total')).toBe(1);
    expect(sampleValue(metrics, 'mailroom_inbound_smtp_recipients_refused_total', { reason: 'unknown_recipient' })).toBe(1);
    await scrapeUntil(urls['inbound-smtp'], 'mailroom_queue_due_items', { queue: 'inbound' }, 0);
  }, 60_000);

  test('when a stored message lost its job (Redis lost it), then the reconciler finds it, counts it, and it is processed', async () => {
    const recovered = (text: string) => sampleValue(text, 'mailroom_reconciler_recovered_total', { kind: 'inbound' }) as number;
    const before = recovered(await scrape(urls['inbound-smtp']));
    await strandReceivedMessage(m);
    const after = await scrapeUntil(urls['inbound-smtp'], 'mailroom_inbound_processed_total', { result: 'stored' }, 2);
    expect(recovered(after) - before).toBe(1);
  }, 60_000);

  test('when a bounce report arrives for a delivered recipient, then inbound processing counts the outcome it recorded, as feedback', async () => {
    const returnPath = await bounceReturnPath(m);
    expect(returnPath).toMatch(/^bounces\+.+@bounces\.mailroom\.test$/);
    const before = await scrape(urls['inbound-smtp']);
    const stored = sampleValue(before, 'mailroom_inbound_processed_total', { result: 'stored' }) as number;
    expect(sampleValue(before, 'mailroom_deliveries_total', { outcome: 'bounced', source: 'feedback' })).toBe(0);
    await sendBounceReport(m, returnPath);
    const after = await scrapeUntil(urls['inbound-smtp'], 'mailroom_inbound_processed_total', { result: 'stored' }, stored + 1);
    expect(sampleValue(after, 'mailroom_deliveries_total', { outcome: 'bounced', source: 'feedback' })).toBe(1);
    expect(sampleValue(after, 'mailroom_deliveries_total', { outcome: 'complained', source: 'feedback' })).toBe(0);
  }, 60_000);

  test('when the events reach the endpoints, then the dispatcher counts each attempt as the log records it, and the endpoint that answered 410 as disabled', async () => {
    await until(() => m.receiver.requests.some((r) => r.url.startsWith('/hook/gone')), 30_000, 'the bounce posted to the endpoint that is gone');
    await scrapeUntil(urls['webhook-dispatcher'], 'mailroom_queue_due_items', { queue: 'webhook-deliveries' }, 0, 30_000);
    // The log and the counters, read until they agree (an attempt may land between the two reads).
    let metrics = '';
    let rows: { success: boolean; response_status: number; n: number }[] = [];
    const logged = (success: boolean, status: number) => rows.find((r) => r.success === success && r.response_status === status)?.n ?? 0;
    await until(
      async () => {
        metrics = await scrape(urls['webhook-dispatcher']);
        ({ rows } = await m.inbound.backends.pool.query<{ success: boolean; response_status: number; n: number }>({
          text: "SELECT success, response_status, count(*)::int AS n FROM webhook_attempts WHERE trigger = 'scheduled' GROUP BY 1, 2",
        }));
        return sampleValue(metrics, 'mailroom_webhook_attempts_total', { result: 'success', trigger: 'scheduled' }) === logged(true, 200);
      },
      20_000,
      'the counters to match the attempt log',
    );
    expect(logged(true, 200)).toBeGreaterThanOrEqual(10);
    expect(sampleValue(metrics, 'mailroom_webhook_attempts_total', { result: 'success', trigger: 'scheduled' })).toBe(logged(true, 200));
    expect(sampleValue(metrics, 'mailroom_webhook_attempts_total', { result: 'http_410', trigger: 'scheduled' })).toBe(1);
    expect(sampleValue(metrics, 'mailroom_webhook_attempt_duration_seconds_count', { outcome: 'success' })).toBe(logged(true, 200));
    expect(sampleValue(metrics, 'mailroom_webhook_endpoints_disabled_total', { reason: 'gone' })).toBe(1);
    expect(sampleValue(metrics, 'mailroom_webhook_endpoints_disabled_total', { reason: 'failing' })).toBe(0);
    expect(sampleValue(metrics, 'mailroom_reconciler_recovered_total', { kind: 'webhook-deliveries' })).toBe(0);
  }, 60_000);

  describe('the dashboard and the alert rules in k8s/monitoring', () => {
    const dashboard = JSON.parse(readFileSync(join(ROOT, 'k8s/monitoring/mailroom-dashboard.json'), 'utf8'));
    const panels: any[] = dashboard.panels.flatMap((p: any) => [p, ...(p.panels ?? [])]);
    const dashboardExprs: string[] = panels.flatMap((p) => (p.targets ?? []).map((target: any) => target.expr));
    const rules = parseYaml(readFileSync(join(ROOT, 'k8s/monitoring/prometheus-rules.yaml'), 'utf8'));
    const alerts: any[] = rules.spec.groups.flatMap((g: any) => g.rules);
    let exposed: Map<string, Set<string>>;

    beforeAll(async () => {
      // The names come from the running services' registries, not from a list kept by hand.
      exposed = new Map();
      for (const url of Object.values(urls)) {
        for (const [name, labels] of exposedSeries(await scrape(url))) exposed.set(name, new Set([...(exposed.get(name) ?? []), ...labels]));
      }
    });

    test('then every series and label the dashboard and the rules query is one a service exports, in valid PromQL', () => {
      expect(dashboardExprs.length).toBeGreaterThan(15);
      expect(alerts.length).toBeGreaterThan(5);
      const problems = [...dashboardExprs, ...alerts.map((a) => a.expr)].flatMap((expr) => unknownReferences(expr, exposed).map((p) => `${p} in: ${expr}`));
      expect(problems).toEqual([]);
    });

    test('when an expression names a renamed metric, a label it lacks, or is not PromQL, then the check says so', () => {
      expect(unknownReferences('sum(rate(mailroom_delivery_total[5m]))', exposed)).toEqual(['mailroom_delivery_total is exported by no service']);
      expect(unknownReferences('max by (queue) (mailroom_queue_due_items{project="p"})', exposed)).toEqual(['mailroom_queue_due_items has no label project']);
      expect(unknownReferences('sum(rate(mailroom_deliveries_total[5m])', exposed).join()).toMatch(/syntax error/);
    });

    test('then the dashboard shows the backlog, delivery, bounce and complaint rates, SMTP and webhook latency, inbound, tracking and the API', () => {
      const all = dashboardExprs.join('\n');
      for (const name of [
        'mailroom_queue_due_items',
        'mailroom_queue_oldest_due_age_seconds',
        'mailroom_deliveries_total{outcome="bounced"}',
        'mailroom_deliveries_total{outcome="complained"}',
        'histogram_quantile(0.99, sum by (le) (rate(mailroom_smtp_transaction_duration_seconds_bucket',
        'histogram_quantile(0.95, sum by (le) (rate(mailroom_webhook_attempt_duration_seconds_bucket',
        'mailroom_inbound_smtp_messages_accepted_total',
        'mailroom_inbound_smtp_messages_refused_total',
        'mailroom_tracking_requests_total',
        'mailroom_http_request_duration_seconds_bucket',
        'mailroom_http_requests_total{status=~"5.."}',
      ]) {
        expect(all).toContain(name);
      }
      const ids = panels.map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const panel of panels.filter((p) => p.type !== 'row')) {
        expect(panel).toMatchObject({ title: expect.any(String), gridPos: { w: expect.any(Number), h: expect.any(Number) }, datasource: { uid: DATASOURCE } });
      }
    });

    test('then the PrometheusRule is well formed and alerts on backlog, bounce and complaint rates, disabled endpoints and lost work', () => {
      expect(rules).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: expect.any(String) } });
      for (const group of rules.spec.groups) expect(group).toMatchObject({ name: expect.any(String), rules: expect.any(Array) });
      for (const alert of alerts) {
        expect(Object.keys(alert).filter((k) => !['alert', 'expr', 'for', 'labels', 'annotations'].includes(k))).toEqual([]);
        expect(alert).toMatchObject({ alert: expect.stringMatching(/^Mailroom[A-Za-z]+$/), expr: expect.any(String), annotations: { summary: expect.any(String) } });
        expect(['warning', 'critical']).toContain(alert.labels.severity);
        if (alert.for !== undefined) expect(alert.for).toMatch(/^\d+[smh]$/);
      }
      const exprOf = (name: string) => alerts.find((a) => a.alert === name)?.expr as string;
      expect(exprOf('MailroomBacklogGrowing')).toContain('mailroom_queue_due_items');
      expect(exprOf('MailroomOldestDueWorkWaiting')).toContain('mailroom_queue_oldest_due_age_seconds');
      expect(exprOf('MailroomBounceRateHigh')).toContain('> 0.04');
      expect(exprOf('MailroomComplaintRateHigh')).toContain('> 0.001');
      expect(exprOf('MailroomComplaintRateCritical')).toContain('> 0.003');
      expect(exprOf('MailroomWebhookEndpointDisabled')).toContain('mailroom_webhook_endpoints_disabled_total');
      expect(exprOf('MailroomReconcilerFoundLostWork')).toContain('mailroom_reconciler_recovered_total');
    });

    test('when k8s/monitoring is rendered, then it holds the rules, the scrape configuration and the dashboard as a ConfigMap', () => {
      const objects = renderKustomization('k8s/monitoring');
      expect(objects.map((o) => o.kind).sort()).toEqual(['ConfigMap', 'PodMonitor', 'PrometheusRule']);
      const configMap = objects.find((o) => o.kind === 'ConfigMap');
      expect(configMap?.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
      expect(JSON.parse(configMap?.data?.['mailroom-dashboard.json'] ?? '{}')).toEqual(dashboard);
      const ports = objects.find((o) => o.kind === 'PodMonitor')?.spec.podMetricsEndpoints.map((e: any) => e.port);
      expect(ports.sort()).toEqual(['http', 'ops']);
    });
  });

  test('then KEDA scales the sender and the dispatcher on the same due-work count the metric exports', () => {
    const scaled = renderKustomization('k8s/base').filter((o) => o.kind === 'ScaledObject');
    const queryOf = (name: string) => scaled.find((o) => o.metadata.name === name)?.spec.triggers[0].metadata.query;
    expect(queryOf('mailroom-sender')).toBe(dueCountQuery('send'));
    expect(queryOf('mailroom-webhook-dispatcher')).toBe(dueCountQuery('webhook-deliveries'));
  });
});
