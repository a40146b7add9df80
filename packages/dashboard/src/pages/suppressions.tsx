import type { Suppression } from '@mailroom/client';
import { DataTable } from '../components/data-table.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { formatDateTime } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { Link } from '../router.tsx';
import { getClient } from '../session.ts';
import { useCursorPages } from '../use-api.ts';
import { ConfirmButton } from './manage/confirm-button.tsx';

/** Recipients not sent to after a hard bounce or a complaint; removing one allows sending again. */
export function SuppressionsPage(_props: PageProps) {
  const pages = useCursorPages<Suppression>((after) => getClient().suppressions.list({ after, limit: 20 }), []);
  return (
    <>
      <PageHeading title="Suppressions" description="Addresses Mailroom no longer sends to, after a hard bounce or a complaint." />
      <div class="wrap-cells">
        <DataTable
          caption="Suppressed recipients"
          pages={pages}
          empty={
            <EmptyState title="No suppressed recipients">
              <p>An address lands here when it hard-bounces (no such mailbox or domain) or its owner complains.</p>
            </EmptyState>
          }
          columns={[
            { header: 'Address', cell: (s) => s.email },
            { header: 'Reason', cell: (s) => s.reason },
            { header: 'Detail', cell: (s) => s.detail ?? '—', wide: true },
            { header: 'Email', cell: (s) => (s.sourceEmailId ? <Link to={`/emails/${encodeURIComponent(s.sourceEmailId)}`}>{s.sourceEmailId}</Link> : '—'), wide: true },
            { header: 'Since', cell: (s) => formatDateTime(s.createdAt), wide: true },
            {
              header: 'Actions',
              cell: (s) => (
                <ConfirmButton
                  label="Remove"
                  ariaLabel={`Remove ${s.email} from suppressions`}
                  title={`Send to ${s.email} again?`}
                  confirmLabel="Remove suppression"
                  action={() => getClient().suppressions.remove(s.email)}
                  onDone={pages.reload}
                >
                  <p>
                    Mail to this address will be attempted again. If it {s.reason === 'complaint' ? 'complained' : 'bounced'} for a reason that still holds, sending
                    to it again hurts the project's reputation.
                  </p>
                </ConfirmButton>
              ),
            },
          ]}
        />
      </div>
    </>
  );
}
