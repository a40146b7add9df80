import type { Route } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ApiError } from '../components/api-error.tsx';
import { DataTable } from '../components/data-table.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { Field } from '../components/field.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { formatDateTime } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { Link } from '../router.tsx';
import { getClient } from '../session.ts';
import { useAction, useCursorPages } from '../use-api.ts';
import { ConfirmButton } from './manage/confirm-button.tsx';

/** The form to create a route or change one: its match and an optional name. */
function RouteForm({ route, onSaved, onCancel }: { route?: Route; onSaved: () => void; onCancel?: () => void }) {
  const [match, setMatch] = useState(route?.match ?? '');
  const [name, setName] = useState(route?.name ?? '');
  const save = useAction(() => {
    const params = { match, name: name.trim() === '' ? null : name };
    return route ? getClient().routes.update(route.id, params) : getClient().routes.create(params);
  });
  return (
    <>
      <form
        class="inline"
        aria-label={route ? `Edit route ${route.match}` : 'Create a route'}
        onSubmit={async (event) => {
          event.preventDefault();
          if (!(await save.run())) return;
          if (!route) {
            setMatch('');
            setName('');
          }
          onSaved();
        }}
      >
        <Field label="Match" hint="An address (support@acme.example) or a whole domain (*@acme.example).">
          <input type="text" name="match" required value={match} onInput={(e) => setMatch(e.currentTarget.value)} />
        </Field>
        <Field label="Name">
          <input type="text" name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <div class="form-actions">
          <button type="submit" disabled={save.busy}>
            {route ? 'Save' : 'Create route'}
          </button>
          {onCancel && (
            <button type="button" class="secondary" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
      </form>
      <ApiError error={save.error} />
    </>
  );
}

/** Routes: which addresses the MX accepts mail for, into this project. List, create, edit, delete. */
export function RoutesPage(_props: PageProps) {
  const pages = useCursorPages<Route>((after) => getClient().routes.list({ after, limit: 20 }), []);
  const [editing, setEditing] = useState<Route | null>(null);
  return (
    <>
      <PageHeading title="Routes" description="Mail to a route's addresses is received into this project (see Received)." />
      <section class="panel" aria-labelledby="route-form-title">
        <h2 id="route-form-title">{editing ? `Edit route ${editing.match}` : 'Create a route'}</h2>
        <RouteForm
          key={editing?.id ?? 'new'}
          route={editing ?? undefined}
          onSaved={() => {
            setEditing(null);
            pages.reload();
          }}
          onCancel={editing ? () => setEditing(null) : undefined}
        />
      </section>
      <div class="wrap-cells">
        <DataTable
          caption="Routes"
          pages={pages}
          empty={
            <EmptyState title="No routes yet">
              <p>Create a route above, point the domain's MX record at this Mailroom, and mail to it appears under Received.</p>
            </EmptyState>
          }
          columns={[
            { header: 'Match', cell: (r) => <Link to={`/received?routeId=${encodeURIComponent(r.id)}`}>{r.match}</Link> },
            { header: 'Name', cell: (r) => r.name ?? '—' },
            { header: 'Id', cell: (r) => <code>{r.id}</code>, wide: true },
            { header: 'Created', cell: (r) => formatDateTime(r.createdAt), wide: true },
            {
              header: 'Actions',
              cell: (r) => (
                <div class="row-actions">
                  <button type="button" class="secondary small" aria-label={`Edit route ${r.match}`} onClick={() => setEditing(r)}>
                    Edit
                  </button>
                  <ConfirmButton
                    label="Delete"
                    ariaLabel={`Delete route ${r.match}`}
                    title={`Delete the route ${r.match}?`}
                    confirmLabel="Delete route"
                    action={() => getClient().routes.remove(r.id)}
                    onDone={() => {
                      if (editing?.id === r.id) setEditing(null);
                      pages.reload();
                    }}
                  >
                    <p>Mail to these addresses is refused from now on. Mail already received stays.</p>
                  </ConfirmButton>
                </div>
              ),
            },
          ]}
        />
      </div>
    </>
  );
}
