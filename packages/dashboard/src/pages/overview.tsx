import type { Stats, StatsCounts } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ApiError } from '../components/api-error.tsx';
import { BarChart } from '../components/bar-chart.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { Field } from '../components/field.tsx';
import { Loading } from '../components/loading.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { formatPercent } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { Link } from '../router.tsx';
import { getClient } from '../session.ts';
import { useApi } from '../use-api.ts';
import { firstSendCommand } from '../first-send-command.ts';
import { TableScroll } from '../components/table-scroll.tsx';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The ranges to choose from: the last 24 hours by hour, the last 7 or 30 days by day. */
export const RANGES = {
  '24h': { label: 'Last 24 hours (hourly)', interval: 'hour', spanMs: DAY_MS },
  '7d': { label: 'Last 7 days (daily, UTC days)', interval: 'day', spanMs: 7 * DAY_MS },
  '30d': { label: 'Last 30 days (daily, UTC days)', interval: 'day', spanMs: 30 * DAY_MS },
} as const;
type RangeKey = keyof typeof RANGES;

const CHARTS: readonly { key: keyof StatsCounts; title: string }[] = [
  { key: 'sent', title: 'Sent' },
  { key: 'delivered', title: 'Delivered' },
  { key: 'bounced', title: 'Bounced' },
  { key: 'complained', title: 'Complained' },
  { key: 'opened', title: 'Opened' },
  { key: 'clicked', title: 'Clicked' },
];

/**
 * What mailbox providers hold senders to. Bounces: under 2 % is healthy, and Amazon SES reviews
 * an account at 5 %. Complaints: Gmail and Yahoo require bulk senders to stay under 0.3 % and
 * advise under 0.1 %.
 */
export const THRESHOLDS = {
  bounce: { good: 0.02, limit: 0.05, text: 'Keep it under 2 %; providers start to block or review senders around 5 %.' },
  complaint: { good: 0.001, limit: 0.003, text: 'Gmail and Yahoo require under 0.3 %; aim for under 0.1 %.' },
} as const;

/**
 * A bucket's name. The API counts in UTC buckets: an hour is shown in the person's time zone (it
 * is the same hour), but a day is named by its UTC date — in the local zone a UTC day starts on
 * another date wherever the offset is negative (00:00 UTC is the evening before in America).
 */
export function bucketLabel(start: string, interval: Stats['interval']): string {
  const date = new Date(start);
  return interval === 'hour'
    ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

function Rate({ name, value, threshold }: { name: string; value: number; threshold: (typeof THRESHOLDS)[keyof typeof THRESHOLDS] }) {
  const verdict = value < threshold.good ? 'healthy' : value < threshold.limit ? 'watch it' : 'over the providers’ limit';
  return (
    <div class="card">
      <div class="muted small">{name}</div>
      <div class={`figure ${value < threshold.limit ? 'rate-ok' : 'rate-bad'}`}>{formatPercent(value)}</div>
      <div class="small">
        <strong>{verdict}</strong> — {threshold.text}
      </div>
    </div>
  );
}

/** The project at a glance: counts per hour or day, and the bounce and complaint rates. */
export function OverviewPage(_props: PageProps) {
  const [range, setRange] = useState<RangeKey>('7d');
  const stats = useApi(() => {
    const { interval, spanMs } = RANGES[range];
    const to = new Date();
    return getClient().stats.get({ interval, from: new Date(to.getTime() - spanMs).toISOString(), to: to.toISOString() });
  }, [range]);
  const s = stats.data;
  return (
    <>
      <PageHeading
        title="Overview"
        description="What happened to this project's mail, and the rates mailbox providers judge a sender by."
        actions={
          <Field label="Range">
            <select value={range} onChange={(event) => setRange(event.currentTarget.value as RangeKey)}>
              {Object.entries(RANGES).map(([key, r]) => (
                <option key={key} value={key}>
                  {r.label}
                </option>
              ))}
            </select>
          </Field>
        }
      />
      {stats.error ? <ApiError error={stats.error} onRetry={stats.reload} /> : null}
      {!s && !stats.error ? <Loading /> : null}
      {s && (
        <>
          <div class="cards">
            <div class="card">
              <div class="muted small">Sent</div>
              <div class="figure">{s.totals.sent}</div>
            </div>
            <div class="card">
              <div class="muted small">Delivered</div>
              <div class="figure">{s.totals.delivered}</div>
            </div>
            <Rate name="Bounce rate" value={s.bounceRate} threshold={THRESHOLDS.bounce} />
            <Rate name="Complaint rate" value={s.complaintRate} threshold={THRESHOLDS.complaint} />
          </div>
          {s.totals.sent === 0 && s.totals.received === 0 ? (
            <EmptyState title="Nothing sent in this range">
              <p>
                Create a key on the <Link to="/api-keys">API keys</Link> page, then send an email; it shows here within a few seconds:
              </p>
              <pre>{firstSendCommand()}</pre>
            </EmptyState>
          ) : null}
          <div class="charts">
            {CHARTS.map((chart) => (
              <BarChart key={chart.key} title={chart.title} data={s.data.map((b) => ({ label: bucketLabel(b.start, s.interval), value: b[chart.key] }))} />
            ))}
          </div>
          <details>
            <summary>The figures as a table</summary>
            <TableScroll label="Events table">
              <table>
                <caption class="visually-hidden">Events per {s.interval}</caption>
                <thead>
                  <tr>
                    <th scope="col">{s.interval === 'hour' ? 'Hour' : 'Day (UTC)'}</th>
                    {CHARTS.map((c) => (
                      <th key={c.key} scope="col">
                        {c.title}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {s.data.map((b) => (
                    <tr key={b.start}>
                      <td>{bucketLabel(b.start, s.interval)}</td>
                      {CHARTS.map((c) => (
                        <td key={c.key}>{b[c.key]}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          </details>
        </>
      )}
    </>
  );
}
