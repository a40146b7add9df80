import type { ReceivedEmailSummary } from '@mailroom/client';
import { DataTable } from '../components/data-table.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { Field } from '../components/field.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { formatBytes, formatDateTime } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { Link, navigate, useLocation } from '../router.tsx';
import { getClient } from '../session.ts';
import { useApi, useCursorPages } from '../use-api.ts';

const PAGE_SIZE = 20;

/** "Name <address>", or the address alone. */
export function formatMailbox(mailbox: { address: string; name?: string | null } | null | undefined): string {
  if (!mailbox) return '—';
  return mailbox.name ? `${mailbox.name} <${mailbox.address}>` : mailbox.address;
}

/** Mail received through the project's routes, newest first, optionally of one route. */
export function ReceivedPage(_props: PageProps) {
  const { query } = useLocation();
  const routeId = query.get('routeId') ?? '';
  const routes = useApi(() => getClient().routes.list({ limit: 100 }), []);
  const pages = useCursorPages<ReceivedEmailSummary>((after) => getClient().receivedEmails.list({ limit: PAGE_SIZE, after, routeId: routeId || undefined }), [routeId]);
  const routeName = (id: string | null) => {
    const route = routes.data?.data.find((r) => r.id === id);
    return route ? route.name || route.match : (id ?? 'feedback');
  };
  return (
    <>
      <PageHeading title="Received" description="Mail that arrived at the project's routes, newest first." />
      <form class="inline" aria-label="Filter received email" onSubmit={(event) => event.preventDefault()}>
        <Field label="Route">
          <select value={routeId} onChange={(event) => navigate(event.currentTarget.value ? `/received?routeId=${encodeURIComponent(event.currentTarget.value)}` : '/received', { replace: true })}>
            <option value="">Every route</option>
            {routes.data?.data.map((route) => (
              <option key={route.id} value={route.id}>
                {route.name ? `${route.name} (${route.match})` : route.match}
              </option>
            ))}
          </select>
        </Field>
      </form>
      <DataTable
        caption="Received emails"
        pages={pages}
        empty={
          routeId ? (
            <EmptyState title="Nothing received on this route yet">
              <p>Choose "Every route" to see all received mail.</p>
            </EmptyState>
          ) : (
            <EmptyState title="No mail received yet">
              <p>
                Add a route on the <Link to="/routes">Routes</Link> page (for example <code>*@in.your-domain.example</code>), point the
                domain's MX record at this Mailroom, and mail sent there shows up here.
              </p>
            </EmptyState>
          )
        }
        columns={[
          { header: 'Subject', cell: (email) => <Link to={`/received/${email.id}`}>{email.subject || '(no subject)'}</Link> },
          { header: 'From', cell: (email) => formatMailbox(email.from) },
          { header: 'To', cell: (email) => email.to.map((to) => to?.address).filter(Boolean).join(', '), wide: true },
          { header: 'Route', cell: (email) => routeName(email.routeId), wide: true },
          { header: 'Size', cell: (email) => formatBytes(email.size), wide: true },
          { header: 'Received', cell: (email) => formatDateTime(email.createdAt) },
        ]}
      />
    </>
  );
}
