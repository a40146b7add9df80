import type { EmailSummary, ListEmailsQuery } from '@mailroom/client';
import { useEffect, useState } from 'preact/hooks';
import { DataTable } from '../components/data-table.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { Field } from '../components/field.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { formatDateTime } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { Link, navigate, useLocation } from '../router.tsx';
import { getClient } from '../session.ts';
import { firstSendCommand } from '../first-send-command.ts';
import { useCursorPages } from '../use-api.ts';

type EmailStatus = NonNullable<ListEmailsQuery['status']>;
const STATUSES: readonly EmailStatus[] = ['scheduled', 'queued', 'sent', 'delivery_delayed', 'delivered', 'bounced', 'complained', 'failed', 'suppressed', 'canceled'];
const PAGE_SIZE = 20;

/** Sent emails, newest first: filter by status, search by recipient, page through. */
export function EmailsPage(_props: PageProps) {
  const { query } = useLocation();
  const status = (query.get('status') ?? '') as EmailStatus | '';
  const to = query.get('to') ?? '';
  const [search, setSearch] = useState(to);
  // The box shows the search the list is filtered by, also when the URL changes under it (Clear, the navigation's "Emails", Back).
  useEffect(() => setSearch(to), [to]);
  const pages = useCursorPages<EmailSummary>(
    (after) => getClient().emails.list({ limit: PAGE_SIZE, after, status: status || undefined, to: to || undefined }),
    [status, to],
  );
  const setFilter = (next: { status?: string; to?: string }) => {
    const params = new URLSearchParams();
    const nextStatus = next.status ?? status;
    const nextTo = next.to ?? to;
    if (nextStatus) params.set('status', nextStatus);
    if (nextTo) params.set('to', nextTo);
    const qs = params.toString();
    navigate(`/emails${qs ? `?${qs}` : ''}`, { replace: true });
  };
  const filtered = Boolean(status || to);
  return (
    <>
      <PageHeading title="Emails" description="Every email this project sent, newest first." />
      <form
        class="inline"
        aria-label="Filter emails"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter({ to: search.trim() });
        }}
      >
        <Field label="Status">
          <select value={status} onChange={(event) => setFilter({ status: event.currentTarget.value })}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Recipient">
          <input type="search" placeholder="someone@example.com" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
        </Field>
        <button type="submit">Search</button>
        {filtered && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setSearch('');
              navigate('/emails', { replace: true });
            }}
          >
            Clear
          </button>
        )}
      </form>
      <DataTable
        caption="Sent emails"
        pages={pages}
        empty={
          filtered ? (
            <EmptyState title="No email matches">
              <p>No sent email has this status or recipient. Clear the filter to see them all.</p>
            </EmptyState>
          ) : (
            <EmptyState title="No email sent yet">
              <p>
                Create a key on the <Link to="/api-keys">API keys</Link> page, then send your first email:
              </p>
              <pre>{firstSendCommand()}</pre>
            </EmptyState>
          )
        }
        columns={[
          { header: 'Subject', cell: (email) => <Link to={`/emails/${email.id}`}>{email.subject || '(no subject)'}</Link> },
          { header: 'To', cell: (email) => email.to.join(', ') },
          { header: 'Status', cell: (email) => <StatusBadge status={email.status} /> },
          { header: 'From', cell: (email) => email.from, wide: true },
          { header: 'Sent', cell: (email) => formatDateTime(email.createdAt), wide: true },
        ]}
      />
    </>
  );
}
