import type { Webhook, WebhookWithSecret } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { DataTable } from '../components/data-table.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { formatDateTime } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { Link } from '../router.tsx';
import { getClient } from '../session.ts';
import { useCursorPages } from '../use-api.ts';
import { ShownOnce } from './manage/shown-once.tsx';
import { WebhookForm } from './manage/webhook-form.tsx';
import { WebhookState } from './manage/webhook-state.tsx';

/** The project's webhook endpoints: list them, create one (its signing secret shown once). */
export function WebhooksPage(_props: PageProps) {
  const pages = useCursorPages<Webhook>((after) => getClient().webhooks.list({ after, limit: 20 }), []);
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);
  return (
    <>
      <PageHeading title="Webhooks" description="Mailroom POSTs the events you choose to your endpoints, signed, with retries." />
      {created && (
        <ShownOnce title="Webhook created" what="signing secret" value={created.secret} onDismiss={() => setCreated(null)}>
          <p>
            Verify each delivery's signature with it. <Link to={`/webhooks/${encodeURIComponent(created.id)}`}>Open the webhook</Link> to send a test event.
          </p>
        </ShownOnce>
      )}
      <section class="panel" aria-labelledby="create-webhook-title">
        <h2 id="create-webhook-title">Create a webhook</h2>
        <WebhookForm
          onCreated={(webhook) => {
            setCreated(webhook);
            pages.reload();
          }}
        />
      </section>
      <div class="wrap-cells">
        <DataTable
          caption="Webhooks"
          pages={pages}
          empty={
            <EmptyState title="No webhooks yet">
              <p>Create one above to be told when mail is delivered, bounces, is opened or arrives.</p>
            </EmptyState>
          }
          columns={[
            { header: 'Endpoint', cell: (w) => <Link to={`/webhooks/${encodeURIComponent(w.id)}`}>{w.url}</Link> },
            { header: 'State', cell: (w) => <WebhookState webhook={w} /> },
            { header: 'Events', cell: (w) => w.events.join(', '), wide: true },
            { header: 'Description', cell: (w) => w.description ?? '—', wide: true },
            { header: 'Created', cell: (w) => formatDateTime(w.createdAt), wide: true },
          ]}
        />
      </div>
    </>
  );
}
