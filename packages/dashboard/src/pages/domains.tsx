import type { Domain } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ApiError } from '../components/api-error.tsx';
import { Pager } from '../components/data-table.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { Field } from '../components/field.tsx';
import { Loading } from '../components/loading.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import type { PageProps } from '../routes.tsx';
import { getClient } from '../session.ts';
import { useAction, useCursorPages } from '../use-api.ts';
import { DomainCard } from './manage/domain-card.tsx';

/** Sending domains: add one, publish its DNS records, verify now, rotate DKIM, delete. */
export function DomainsPage(_props: PageProps) {
  const pages = useCursorPages<Domain>((after) => getClient().domains.list({ after, limit: 10 }), []);
  const [name, setName] = useState('');
  const add = useAction(() => getClient().domains.create({ name }));
  const rows = pages.data?.data;
  return (
    <>
      <PageHeading title="Domains" description="Publish each domain's records at your DNS provider; mail from a verified domain is signed and aligned." />
      <section class="panel" aria-labelledby="add-domain-title">
        <h2 id="add-domain-title">Add a domain</h2>
        <form
          class="inline"
          onSubmit={async (event) => {
            event.preventDefault();
            if (!(await add.run())) return;
            setName('');
            pages.reload();
          }}
        >
          <Field label="Domain name">
            <input type="text" name="name" required placeholder="acme.example" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={add.busy}>
            {add.busy ? 'Adding…' : 'Add domain'}
          </button>
        </form>
        <ApiError error={add.error} />
      </section>
      {pages.error ? (
        <ApiError error={pages.error} onRetry={pages.reload} />
      ) : !rows ? (
        <Loading />
      ) : rows.length === 0 && !pages.hasPrevious ? (
        <EmptyState title="No domains yet">
          <p>Add the domain you send from; Mailroom lists the DNS records to publish and checks them on a schedule.</p>
        </EmptyState>
      ) : (
        <>
          {rows.map((domain) => (
            <DomainCard key={`${domain.id}-${domain.lastCheckedAt ?? ''}`} initial={domain} onDeleted={pages.reload} />
          ))}
          <Pager pages={pages} />
        </>
      )}
    </>
  );
}
