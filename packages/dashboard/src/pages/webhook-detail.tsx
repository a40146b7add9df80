import type { Webhook, WebhookAttempt, WebhookWithSecret } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ActionButton } from '../components/action-button.tsx';
import { ApiError } from '../components/api-error.tsx';
import { DetailsList } from '../components/details-list.tsx';
import { Loading } from '../components/loading.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { formatDateTime } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { Link, navigate } from '../router.tsx';
import { getClient } from '../session.ts';
import { useAction, useApi } from '../use-api.ts';
import { ConfirmButton } from './manage/confirm-button.tsx';
import { RecoverForm } from './manage/recover-form.tsx';
import { ShownOnce } from './manage/shown-once.tsx';
import { attemptSummary, WebhookAttempts } from './manage/webhook-attempts.tsx';
import { WebhookState } from './manage/webhook-state.tsx';

/** The buttons acting on an endpoint: test, replay, enable/disable, rotate the secret, delete. */
function WebhookActions({ webhook, onChanged, onAttempt, onSecret }: { webhook: Webhook; onChanged: () => void; onAttempt: () => void; onSecret: (w: WebhookWithSecret) => void }) {
  const [outcome, setOutcome] = useState('');
  const deliver = useAction(async (what: 'test' | 'replay') => {
    setOutcome('');
    const attempt: WebhookAttempt = what === 'test' ? await getClient().webhooks.test(webhook.id) : await getClient().webhooks.replay(webhook.id);
    setOutcome(`${what === 'test' ? 'Test event' : `Replay of ${attempt.eventType}`}: ${attemptSummary(attempt)}`);
    onAttempt();
    return attempt;
  });
  const toggle = useAction(async () => {
    const updated = await getClient().webhooks.update(webhook.id, { enabled: !webhook.enabled });
    onChanged();
    return updated;
  });
  return (
    <div>
      <div class="actions">
        <ActionButton class="secondary" busy={deliver.busy} onClick={() => void deliver.run('test')}>
          Send test event
        </ActionButton>
        <ActionButton class="secondary" busy={deliver.busy} onClick={() => void deliver.run('replay')}>
          Replay last failed
        </ActionButton>
        <ActionButton class="secondary" busy={toggle.busy} onClick={() => void toggle.run()}>
          {webhook.enabled ? 'Disable' : 'Enable'}
        </ActionButton>
        <ConfirmButton
          small={false}
          label="Rotate secret"
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          action={() => getClient().webhooks.rotateSecret(webhook.id)}
          onDone={onSecret}
        >
          <p>A new secret is made and shown once. For 24 hours deliveries carry signatures with both, so you can switch your receiver over.</p>
        </ConfirmButton>
        <ConfirmButton
          small={false}
          label="Delete"
          title="Delete this webhook?"
          confirmLabel="Delete webhook"
          action={() => getClient().webhooks.remove(webhook.id)}
          onDone={() => navigate('/webhooks')}
        >
          <p>
            Deliveries to <code>{webhook.url}</code> stop, pending retries included, and its delivery log is deleted.
          </p>
        </ConfirmButton>
      </div>
      <p role="status">{outcome}</p>
      <ApiError error={deliver.error ?? toggle.error} />
    </div>
  );
}

/** One endpoint: its settings, what can be done to it, recovery, and its delivery log. */
export function WebhookDetailPage({ params }: PageProps) {
  const id = params.id ?? '';
  const webhook = useApi(() => getClient().webhooks.get(id), [id]);
  const [round, setRound] = useState(0);
  const [secret, setSecret] = useState<WebhookWithSecret | null>(null);
  const attemptsChanged = () => setRound((r) => r + 1);
  const w = webhook.data;
  return (
    <>
      <PageHeading title="Webhook" description={w ? <code>{w.url}</code> : undefined} />
      <p>
        <Link to="/webhooks">← All webhooks</Link>
      </p>
      {webhook.error ? (
        <ApiError error={webhook.error} onRetry={webhook.reload} />
      ) : !w ? (
        <Loading />
      ) : (
        <>
          {secret && <ShownOnce title="New signing secret" what="signing secret" value={secret.secret} onDismiss={() => setSecret(null)} />}
          <DetailsList
            items={[
              ['State', <WebhookState key="state" webhook={w} />],
              ['Events', w.events.join(', ')],
              ['Route', w.routeId ? <code>{w.routeId}</code> : 'Every event of the project'],
              ['Description', w.description],
              ['Id', <code key="id">{w.id}</code>],
              ['Created', formatDateTime(w.createdAt)],
            ]}
          />
          <WebhookActions webhook={w} onChanged={webhook.reload} onAttempt={attemptsChanged} onSecret={setSecret} />
          <RecoverForm webhookId={w.id} onRecovered={attemptsChanged} />
          <WebhookAttempts webhookId={w.id} round={round} />
        </>
      )}
    </>
  );
}
