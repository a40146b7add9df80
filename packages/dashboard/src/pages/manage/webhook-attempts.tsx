import type { WebhookAttempt } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { DataTable } from '../../components/data-table.tsx';
import { EmptyState } from '../../components/empty-state.tsx';
import { Field } from '../../components/field.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { formatDateTime } from '../../format.ts';
import { getClient } from '../../session.ts';
import { useCursorPages } from '../../use-api.ts';
import './manage.css';

type Outcome = '' | 'true' | 'false';

/** An attempt in one line: "200 in 35 ms", or why there was no response. */
export function attemptSummary(attempt: WebhookAttempt): string {
  const answer = attempt.responseStatus === null ? (attempt.error ?? 'no response') : `HTTP ${attempt.responseStatus}`;
  return `${attempt.success ? 'Delivered' : 'Failed'}: ${answer} in ${attempt.durationMs} ms`;
}

/**
 * The endpoint's delivery log, newest first, filtered by outcome and event. Response bodies are
 * shown as text (Preact escapes them): an endpoint's answer never becomes markup here.
 */
export function WebhookAttempts({ webhookId, round }: { webhookId: string; round: number }) {
  const [outcome, setOutcome] = useState<Outcome>('');
  const [eventId, setEventId] = useState('');
  const [applied, setApplied] = useState({ outcome: '' as Outcome, eventId: '' });
  const pages = useCursorPages<WebhookAttempt>(
    (after) =>
      getClient().webhooks.attempts(webhookId, {
        after,
        limit: 20,
        ...(applied.outcome ? { success: applied.outcome } : {}),
        ...(applied.eventId ? { eventId: applied.eventId } : {}),
      }),
    [webhookId, applied.outcome, applied.eventId, round],
  );
  return (
    <section aria-labelledby="attempts-title">
      <h2 id="attempts-title">Delivery attempts</h2>
      <form
        class="inline"
        aria-label="Filter attempts"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied({ outcome, eventId: eventId.trim() });
        }}
      >
        <Field label="Outcome">
          <select name="success" value={outcome} onChange={(e) => setOutcome(e.currentTarget.value as Outcome)}>
            <option value="">All</option>
            <option value="true">Succeeded</option>
            <option value="false">Failed</option>
          </select>
        </Field>
        <Field label="Event id">
          <input type="text" name="eventId" placeholder="evt_…" value={eventId} onInput={(e) => setEventId(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="secondary">
          Filter
        </button>
        <button type="button" class="secondary" onClick={pages.reload}>
          Refresh
        </button>
      </form>
      <div class="wrap-cells">
        <DataTable
          caption="Delivery attempts"
          pages={pages}
          empty={
            <EmptyState title={applied.outcome || applied.eventId ? 'No attempt matches' : 'No deliveries yet'}>
              <p>Events appear here as they are delivered. “Send test event” delivers one now.</p>
            </EmptyState>
          }
          columns={[
            { header: 'When', cell: (a) => formatDateTime(a.createdAt) },
            { header: 'Result', cell: (a) => <StatusBadge status={a.success ? 'success' : 'failed'} /> },
            { header: 'Status code', cell: (a) => (a.responseStatus === null ? <span title={a.error ?? undefined}>none</span> : String(a.responseStatus)) },
            { header: 'Duration', cell: (a) => `${a.durationMs} ms`, wide: true },
            {
              header: 'Event',
              cell: (a) => (
                <>
                  {a.eventType}
                  <br />
                  <code class="small">{a.eventId}</code>
                </>
              ),
            },
            { header: 'Attempt', cell: (a) => `#${a.attempt} (${a.trigger})`, wide: true },
            { header: 'Next retry', cell: (a) => formatDateTime(a.nextRetryAt), wide: true },
            {
              header: 'Response',
              wide: true,
              cell: (a) => (
                <>
                  {a.error && <p class="small">{a.error}</p>}
                  {a.responseBody ? <pre class="response-body">{a.responseBody}</pre> : <span class="muted">—</span>}
                </>
              ),
            },
          ]}
        />
      </div>
    </section>
  );
}
