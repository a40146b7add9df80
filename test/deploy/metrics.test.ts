import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadConfig, newId } from '@mailroom/core';
import { dueCountQuery } from '@mailroom/db';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { parse as parseYaml } from 'yaml';
import { type RunningInbound, startInbound } from '../../services/inbound-smtp/src/start-inbound';
import { swaks } from '../../services/inbound-smtp/test/smtp-support';
import { type RunningSender, startSender } from '../../services/sender/src/start-sender';
import { type RunningTracking, startTracking } from '../../services/tracking/src/start-tracking';
import { type RunningDispatcher, startDispatcher } from '../../services/webhook-dispatcher/src/start-dispatcher';
import { Receiver, until } from '../../services/webhook-dispatcher/test/support';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { createKey, signUp, startTestGateway, testEnv, type TestGateway } from '../support/gateway';
import type { ApiClient } from '../support/http';
import { isFinished, waitForEmail } from '../support/sending';
import { renderKustomization } from './support/kubernetes';
import { exposedSeries, sampleValue, unknownReferences } from './support/promql';

/**
 * Operator metrics (README "Metrics"), through real work: every service started the way its
 * main.ts starts it, on one database, sends through a real SMTP sink, webhooks to a real
 * receiver, a message into the real MX, a pixel fetched from the tracking service; then each
 * service's /metrics is scraped over HTTP. The Grafana dashboard and the alert rules in
 * k8s/monitoring are checked against the series those scrapes expose.
 */

const ROOT = join(__dirname, '../..');
// Grafana's variable for the Prometheus data source, chosen when the dashboard is imported.
const DATASOURCE = '$' + '{datasource}';
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

/**
 * An SMTP next hop: 550 5.1.1 for `bounce@`, holds its reply to DATA for `held…@` until
 * `release()`, accepts everything else; keeps what it accepted.
 */
class Sink {
  readonly messages: { from: string; to: string; raw: Buffer }[] = [];
  received = 0;
  port = 0;
  private readonly held: (() => void)[] = [];
  private holding = true;
  private readonly server = new SMTPServer({
    disabledCommands: ['AUTH', 'STARTTLS'],
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    onRcptTo: (address, _session, callback) =>
      address.address.startsWith('bounce@') ? callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 })) : callback(),
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        this.received += 1;
        const to = session.envelope.rcptTo[0]?.address ?? '';
        const reply = () => {
          this.messages.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to, raw: Buffer.concat(chunks) });
          callback();
        };
        if (this.holding && to.startsWith('held')) this.held.push(reply);
        else reply();
      });
    },
  });

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server.server, 'listening');
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  release(): void {
    this.holding = false;
    for (const reply of this.held.splice(0)) reply();
  }

  stop(): Promise<void> {
    this.release();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** GET with a chosen User-Agent; the body as text. */
function get(url: string, userAgent = BROWSER): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'user-agent': userAgent } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function scrape(url: string | undefined): Promise<string> {
  const res = await get(`${url}/metrics`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Scrapes `url` until the sample has the value `expected` (gauges read at scrape time lag by their cache); returns that scrape. */
async function scrapeUntil(url: string | undefined, name: string, labels: Record<string, string>, expected: number, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await scrape(url);
    const value = sampleValue(text, name, labels);
    if (value === expected) return text;
    if (Date.now() > deadline) throw new Error(`${name}${JSON.stringify(labels)} is ${value}, not ${expected}, after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('operator metrics', () => {
  let database: TestDatabase;
  let t: TestGateway;
  let sender: RunningSender;
  let dispatcher: RunningDispatcher;
  let inbound: RunningInbound;
  let tracking: RunningTracking;
  let api: ApiClient;
  let projectId: string;
  let routeId: string;
  const sink = new Sink();
  const receiver = new Receiver();
  const urls = () => ({ gateway: t.gateway.url, sender: sender.opsUrl, dispatcher: dispatcher.opsUrl, inbound: inbound.opsUrl, tracking: tracking.url });

  beforeAll(async () => {
    database = await createTestDatabase('metrics');
    await Promise.all([sink.start(), receiver.start()]);
    const base = testEnv(database, {
      OPS_PORT: '0',
      TRACKING_PORT: '0',
      SMTP_PORT: '0',
      OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_SIGNUP: 'true',
      BOUNCE_DOMAIN: 'bounces.mailroom.test',
      RECONCILE_INTERVAL_SECONDS: '1',
    });
    tracking = await startTracking(loadConfig(base), { host: '127.0.0.1' });
    const env = { ...base, TRACKING_BASE_URL: tracking.url };
    t = await startTestGateway({ database, env });
    const config = loadConfig(env);
    [sender, dispatcher, inbound] = await Promise.all([startSender(config), startDispatcher(config), startInbound(config, { host: '127.0.0.1' })]);
    const owner = await signUp(t.api);
    projectId = owner.projectId;
    api = t.api.as({ token: (await createKey(owner.as)).token });
    receiver.answer = (r) => (r.url.startsWith('/hook/gone') ? { status: 410 } : { status: 200, body: 'ok' });
    expect((await api.post('/webhooks', { url: `${receiver.url}/all`, events: ['email.sent', 'email.delivered', 'email.bounced', 'email.complained', 'email.opened', 'email.received'] })).status).toBe(201);
    // Only the one bounce reaches it: one 410, one endpoint disabled.
    expect((await api.post('/webhooks', { url: `${receiver.url}/gone`, events: ['email.bounced'] })).status).toBe(201);
    const route = await api.post('/routes', { match: 'support@acme.test' });
    expect(route.status).toBe(201);
    routeId = route.body.id;
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled([sender?.stop(), dispatcher?.stop(), inbound?.stop(), tracking?.stop()]);
    await t?.close();
    await Promise.allSettled([sink.stop(), receiver.stop()]);
    await database?.drop();
  });

  const send = async (to: string, extra: object = {}) => {
    const res = await api.post('/emails', { from: 'Acme <hello@acme.test>', to, subject: 'Hello', html: '<p>Hi <a href="https://acme.example/">there</a></p>', ...extra });
    expect(res.status).toBe(200);
    return res.body.id as string;
  };

  test('when sends wait at a slow MX, then the sender reports them as due work; once answered, its outcomes, SMTP latency and a drained backlog', async () => {
    const held = [await send('held1@example.test'), await send('held2@example.test'), await send('held3@example.test')];
    await until(() => sink.received === 3, 20_000, 'the three held messages at the sink');
    // Due (and being worked on): counted from PostgreSQL whatever Redis holds.
    let metrics = await scrapeUntil(sender.opsUrl, 'mailroom_queue_due_items', { queue: 'send' }, 3);
    const age = sampleValue(metrics, 'mailroom_queue_oldest_due_age_seconds', { queue: 'send' }) as number;
    expect(age).toBeGreaterThan(0);
    expect(age).toBeLessThan(60);

    const others = [await send('ok@example.test', { trackOpens: true }), await send('bounce@example.test'), await send('complained@sandbox.mailroom.test')];
    sink.release();
    for (const id of [...held, ...others]) await waitForEmail(api, id, isFinished, 20_000);
    metrics = await scrapeUntil(sender.opsUrl, 'mailroom_queue_due_items', { queue: 'send' }, 0);

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

    const gateway = await scrape(t.gateway.url);
    expect(sampleValue(gateway, 'mailroom_http_requests_total', { method: 'POST', route: '/emails', status: '200' })).toBe(6);
  }, 120_000);

  test('when the tracked email is opened by a person and a bad token is fetched, then tracking counts each by route and outcome', async () => {
    const message = sink.messages.find((m) => m.to === 'ok@example.test');
    const html = String((await simpleParser(message?.raw ?? Buffer.alloc(0))).html);
    const pixel = /<img src="([^"]+\/o\/[^"]+)"/.exec(html)?.[1] as string;
    expect(pixel.startsWith(`${tracking.url}/o/`)).toBe(true);
    expect((await get(pixel)).status).toBe(200);
    expect((await get(pixel, 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)')).status).toBe(200);
    expect((await get(`${tracking.url}/o/not-a-token`)).status).toBe(404);
    const metrics = await scrape(tracking.url);
    expect(sampleValue(metrics, 'mailroom_tracking_requests_total', { route: 'open', outcome: 'ok' })).toBe(1);
    expect(sampleValue(metrics, 'mailroom_tracking_requests_total', { route: 'open', outcome: 'bot' })).toBe(1);
    expect(sampleValue(metrics, 'mailroom_tracking_requests_total', { route: 'open', outcome: 'not_found' })).toBe(1);
  });

  test('when a message arrives for a route and another for nobody, then the MX counts the accept and the refusal, and processing the message', async () => {
    const server = ['--server', '127.0.0.1', '--port', String(inbound.port), '--from', 'alice@example.com', '--helo', 'client.example.com'];
    expect((await swaks([...server, '--to', 'support@acme.test', '--header', 'Subject: Metrics'])).code).toBe(0);
    expect((await swaks([...server, '--to', 'nobody@acme.test'])).code).not.toBe(0);
    const metrics = await scrapeUntil(inbound.opsUrl, 'mailroom_inbound_processed_total', { result: 'stored' }, 1);
    expect(sampleValue(metrics, 'mailroom_inbound_smtp_messages_accepted_total')).toBe(1);
    expect(sampleValue(metrics, 'mailroom_inbound_smtp_recipients_refused_total', { reason: 'unknown_recipient' })).toBe(1);
    await scrapeUntil(inbound.opsUrl, 'mailroom_queue_due_items', { queue: 'inbound' }, 0);
  }, 60_000);

  test('when a stored message lost its job (Redis lost it), then the reconciler finds it, counts it, and it is processed', async () => {
    const recovered = (text: string) => sampleValue(text, 'mailroom_reconciler_recovered_total', { kind: 'inbound' }) as number;
    const before = recovered(await scrape(inbound.opsUrl));
    const raw = Buffer.from('From: alice@example.com\r\nTo: support@acme.test\r\nSubject: Lost\r\n\r\nHello.\r\n');
    // As the MX stores it before its 250, a minute ago, with no job in any queue.
    await inbound.backends.pool.query({
      text: `INSERT INTO received_emails (id, project_id, kind, route_ids, mail_from, rcpt_to, raw, size, "references", created_at)
             VALUES ($1, $2, 'route', ARRAY[$3], 'alice@example.com', ARRAY['support@acme.test'], $4, $5, '{}', now() - interval '1 minute')`,
      values: [newId('receivedEmail'), projectId, routeId, raw, raw.length],
    });
    const after = await scrapeUntil(inbound.opsUrl, 'mailroom_inbound_processed_total', { result: 'stored' }, 2);
    expect(recovered(after) - before).toBe(1);
  }, 60_000);

  test('when a bounce report arrives for a delivered recipient, then inbound processing counts the outcome it recorded, as feedback', async () => {
    // The endpoint subscribed to bounces is disabled by the first one's 410 before this one: one 410 in all.
    await until(
      async () => (await inbound.backends.pool.query({ text: "SELECT 1 FROM webhooks WHERE url LIKE '%/hook/gone' AND NOT enabled" })).rowCount === 1,
      30_000,
      'the endpoint that is gone to be disabled',
    );
    const { from: returnPath } = sink.messages.find((m) => m.to === 'held1@example.test') ?? { from: '' };
    expect(returnPath).toMatch(/^bounces\+.+@bounces\.mailroom\.test$/);
    const report = [
      'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
      `To: ${returnPath}`,
      'Subject: Undelivered Mail Returned to Sender',
      'Message-ID: <dsn-metrics@mx.example.net>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
      '',
      '--b1',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example.net',
      '',
      'Final-Recipient: rfc822; held1@example.test',
      'Action: failed',
      'Status: 5.1.1',
      'Diagnostic-Code: smtp; 550 5.1.1 User unknown',
      '',
      '--b1--',
      '',
    ].join('\r\n');
    const before = await scrape(inbound.opsUrl);
    const stored = sampleValue(before, 'mailroom_inbound_processed_total', { result: 'stored' }) as number;
    expect(sampleValue(before, 'mailroom_deliveries_total', { outcome: 'bounced', source: 'feedback' })).toBe(0);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: inbound.port, secure: false, ignoreTLS: true });
    try {
      await transport.sendMail({ envelope: { from: '', to: [returnPath] }, raw: report });
    } finally {
      transport.close();
    }
    const after = await scrapeUntil(inbound.opsUrl, 'mailroom_inbound_processed_total', { result: 'stored' }, stored + 1);
    expect(sampleValue(after, 'mailroom_deliveries_total', { outcome: 'bounced', source: 'feedback' })).toBe(1);
    expect(sampleValue(after, 'mailroom_deliveries_total', { outcome: 'complained', source: 'feedback' })).toBe(0);
  }, 60_000);

  test('when the events reach the endpoints, then the dispatcher counts each attempt as the log records it, and the endpoint that answered 410 as disabled', async () => {
    await until(() => receiver.requests.some((r) => r.url.startsWith('/hook/gone')), 30_000, 'the bounce posted to the endpoint that is gone');
    await scrapeUntil(dispatcher.opsUrl, 'mailroom_queue_due_items', { queue: 'webhook-deliveries' }, 0, 30_000);
    // The log and the counters, read until they agree (an attempt may land between the two reads).
    let metrics = '';
    let rows: { success: boolean; response_status: number; n: number }[] = [];
    const logged = (success: boolean, status: number) => rows.find((r) => r.success === success && r.response_status === status)?.n ?? 0;
    await until(
      async () => {
        metrics = await scrape(dispatcher.opsUrl);
        ({ rows } = await inbound.backends.pool.query<{ success: boolean; response_status: number; n: number }>({
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
      for (const url of Object.values(urls())) {
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
