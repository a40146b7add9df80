import type { WebhookRecovery } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ApiError } from '../../components/api-error.tsx';
import { Field } from '../../components/field.tsx';
import { formatDateTime } from '../../format.ts';
import { getClient } from '../../session.ts';
import { useAction } from '../../use-api.ts';

/** How far back a recovery may start (the API refuses more, DESIGN §4). */
const RECOVER_DAYS = 14;

/** A Date as the value of a `datetime-local` input, in the person's time zone, to the minute. */
function localInputValue(date: Date): string {
  const shifted = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return shifted.toISOString().slice(0, 16);
}

/** "Recover since": re-deliver every event whose deliveries to this endpoint all failed since a time. */
export function RecoverForm({ webhookId, onRecovered }: { webhookId: string; onRecovered: () => void }) {
  const now = new Date();
  const [since, setSince] = useState(() => localInputValue(new Date(now.getTime() - 24 * 3600_000)));
  const [result, setResult] = useState<WebhookRecovery | null>(null);
  const recover = useAction(() => {
    const at = new Date(since);
    if (Number.isNaN(at.getTime())) return Promise.reject(new Error('Give a date and time to recover from.'));
    return getClient().webhooks.recover(webhookId, { since: at.toISOString() });
  });
  return (
    <section class="panel" aria-labelledby="recover-title">
      <h2 id="recover-title">Recover failed events</h2>
      <form
        class="inline"
        onSubmit={async (event) => {
          event.preventDefault();
          setResult(null);
          const recovery = await recover.run();
          if (!recovery) return;
          setResult(recovery);
          onRecovered();
        }}
      >
        <Field label="Since" hint={`At most ${RECOVER_DAYS} days back.`}>
          <input
            type="datetime-local"
            name="since"
            required
            min={localInputValue(new Date(now.getTime() - RECOVER_DAYS * 24 * 3600_000))}
            max={localInputValue(now)}
            value={since}
            onInput={(e) => setSince(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="secondary" disabled={recover.busy}>
          {recover.busy ? 'Recovering…' : 'Recover since'}
        </button>
      </form>
      <ApiError error={recover.error} />
      <p role="status">
        {result && `${result.events} event${result.events === 1 ? '' : 's'} since ${formatDateTime(result.since)} marked for re-delivery.`}
      </p>
    </section>
  );
}
