import type { ReceivedEmail } from '@mailroom/client';
import { ActionButton } from '../components/action-button.tsx';
import { ApiError } from '../components/api-error.tsx';
import { DetailsList } from '../components/details-list.tsx';
import { saveBytes } from '../components/download.ts';
import { PendingResource } from '../components/pending-resource.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { SandboxedHtml } from '../components/sandboxed-html.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { formatBytes, formatDateTime } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { Link } from '../router.tsx';
import { getClient } from '../session.ts';
import { useAction, useApi } from '../use-api.ts';
import { formatMailbox } from './received.tsx';
import { TableScroll } from '../components/table-scroll.tsx';

type Verdict = { result?: string; domain?: string; selector?: string; aligned?: boolean; policy?: string };

/** SPF, DKIM (one line per signature), DMARC and ARC verdicts, each with its result as a badge. */
function Authentication({ authentication }: { authentication: ReceivedEmail['authentication'] }) {
  if (!authentication) return <p class="muted">Not checked yet: the message is still being processed.</p>;
  const dkim = (Array.isArray(authentication.dkim) ? authentication.dkim : []) as Verdict[];
  const rows: [string, Verdict | undefined, string][] = [
    ['SPF', authentication.spf as Verdict | undefined, ''],
    ...(dkim.length === 0
      ? ([['DKIM', { result: 'none' }, 'unsigned']] as [string, Verdict, string][])
      : dkim.map((v): [string, Verdict, string] => ['DKIM', v, [v.selector && `selector ${v.selector}`, v.aligned ? 'aligned' : 'not aligned'].filter(Boolean).join(', ')])),
    ['DMARC', authentication.dmarc as Verdict | undefined, (authentication.dmarc as Verdict | undefined)?.policy ? `policy ${(authentication.dmarc as Verdict).policy}` : ''],
    ['ARC', authentication.arc as Verdict | undefined, ''],
  ];
  return (
    <TableScroll label="Authentication verdicts">
      <table>
        <caption class="visually-hidden">Authentication verdicts</caption>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">Result</th>
            <th scope="col">Domain</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([check, verdict, details], i) => (
            <tr key={`${check}${i}`}>
              <td>{check}</td>
              <td>
                <StatusBadge status={verdict?.result ?? 'none'} />
              </td>
              <td>{verdict?.domain ?? '—'}</td>
              <td>{details || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** One received email: parsed fields, authentication, attachments, raw download, and its content. */
export function ReceivedDetailPage({ params }: PageProps) {
  const id = params.id ?? '';
  const email = useApi(() => getClient().receivedEmails.get(id), [id]);
  const download = useAction(async (what: 'raw' | { id: string; filename: string | null; contentType: string }) => {
    if (what === 'raw') saveBytes(await getClient().receivedEmails.raw(id), `${id}.eml`, 'message/rfc822');
    else saveBytes(await getClient().receivedEmails.attachment(id, what.id), what.filename || what.id, what.contentType);
  });
  if (!email.data) return <PendingResource title="Received email" state={email} />;
  const e = email.data;
  return (
    <>
      <PageHeading
        title={e.subject || '(no subject)'}
        description={
          <>
            <Link to="/received">Received</Link> / <code>{e.id}</code>
          </>
        }
        actions={
          <ActionButton class="secondary" busy={download.busy} onClick={() => void download.run('raw')}>
            Download raw message
          </ActionButton>
        }
      />
      <ApiError error={download.error} />
      <DetailsList
        items={[
          ['From', formatMailbox(e.from)],
          ['To', e.to.map(formatMailbox).join(', ')],
          ['Cc', e.cc.map(formatMailbox).join(', ')],
          ['Reply-To', e.replyTo.map(formatMailbox).join(', ')],
          ['Date', e.date ? formatDateTime(e.date) : null],
          ['Received', formatDateTime(e.createdAt)],
          ['Message-ID', e.messageId],
          ['In-Reply-To', e.inReplyTo],
          ['Envelope', `MAIL FROM ${e.envelope.mailFrom || '<>'} · RCPT TO ${e.envelope.rcptTo.join(', ')}`],
          ['Client', `${e.envelope.remoteAddress ?? '—'} (HELO ${e.envelope.helo ?? '—'})`],
          ['Size', formatBytes(e.size)],
        ]}
      />
      <h2>Authentication</h2>
      <Authentication authentication={e.authentication} />
      <h2>Attachments</h2>
      {e.attachments.length === 0 ? (
        <p class="muted">No attachment.</p>
      ) : (
        <ul>
          {e.attachments.map((a) => (
            <li key={a.id}>
              <ActionButton class="secondary small" busy={download.busy} onClick={() => void download.run(a)}>
                Download {a.filename || a.id}
              </ActionButton>{' '}
              <span class="muted small">
                {a.contentType}, {formatBytes(a.size)}
                {a.disposition ? `, ${a.disposition}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
      <h2>Content</h2>
      {e.html ? <SandboxedHtml html={e.html} title={`Content of “${e.subject ?? ''}”`} /> : null}
      {e.text && (
        <details open={!e.html}>
          <summary>Plain text</summary>
          <pre>{e.text}</pre>
        </details>
      )}
      <details>
        <summary>Headers ({e.headers.length})</summary>
        <pre>{e.headers.map((h) => `${h.name}: ${h.value}`).join('\n')}</pre>
      </details>
    </>
  );
}
