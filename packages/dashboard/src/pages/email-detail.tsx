import { DetailsList } from '../components/details-list.tsx';
import { PendingResource } from '../components/pending-resource.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { SandboxedHtml } from '../components/sandboxed-html.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Timeline } from '../components/timeline.tsx';
import { formatDateTime } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { Link } from '../router.tsx';
import { getClient } from '../session.ts';
import { useApi } from '../use-api.ts';
import { TableScroll } from '../components/table-scroll.tsx';

/** One sent email: its fields, each recipient's status, the timeline, and the content. */
export function EmailDetailPage({ params }: PageProps) {
  const id = params.id ?? '';
  const email = useApi(() => getClient().emails.get(id), [id]);
  if (!email.data) return <PendingResource title="Email" state={email} />;
  const e = email.data;
  return (
    <>
      <PageHeading
        title={e.subject || '(no subject)'}
        description={
          <>
            <Link to="/emails">Emails</Link> / <code>{e.id}</code>
          </>
        }
        actions={
          <button type="button" class="secondary" onClick={email.reload} disabled={email.loading}>
            Refresh
          </button>
        }
      />
      <DetailsList
        items={[
          ['Status', <StatusBadge key="s" status={e.status} />],
          ['From', e.from],
          ['To', e.to.join(', ')],
          ['Cc', e.cc.join(', ')],
          ['Reply-To', e.replyTo.join(', ')],
          ['Created', formatDateTime(e.createdAt)],
          ['Scheduled for', e.scheduledAt ? formatDateTime(e.scheduledAt) : null],
          ['Tags', e.tags.map((t) => `${t.name}=${t.value}`).join(', ')],
          ['Tracking', [e.trackOpens && 'opens', e.trackClicks && 'clicks'].filter(Boolean).join(', ') || 'off'],
        ]}
      />
      <h2>Recipients</h2>
      <TableScroll label="Recipients">
        <table>
          <caption class="visually-hidden">Recipients and their statuses</caption>
          <thead>
            <tr>
              <th scope="col">Recipient</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last response</th>
              <th scope="col" class="wide">Opens / clicks</th>
            </tr>
          </thead>
          <tbody>
            {e.recipients.map((r) => (
              <tr key={`${r.kind}:${r.email}`}>
                <td>
                  {r.email} <span class="muted small">{r.kind}</span>
                </td>
                <td>
                  <StatusBadge status={r.status} />
                  {r.nextAttemptAt && <div class="muted small">next try {formatDateTime(r.nextAttemptAt)}</div>}
                </td>
                <td>{r.attempts}</td>
                <td>{r.lastResponse ?? <span class="muted">—</span>}</td>
                <td class="wide">
                  {r.opens} / {r.clicks}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <h2>Timeline</h2>
      <Timeline events={e.events} />
      <h2>Content</h2>
      {e.html ? <SandboxedHtml html={e.html} title={`Content of “${e.subject}”`} /> : null}
      {e.text && (
        <details open={!e.html}>
          <summary>Plain text</summary>
          <pre>{e.text}</pre>
        </details>
      )}
    </>
  );
}
