import type { ApiKey, CreatedApiKey } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ApiError } from '../components/api-error.tsx';
import { DataTable } from '../components/data-table.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { Field } from '../components/field.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { firstSendCommand } from '../first-send-command.ts';
import { formatDateTime } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { getClient } from '../session.ts';
import { useAction, useCursorPages } from '../use-api.ts';
import { ConfirmButton } from './manage/confirm-button.tsx';
import { ShownOnce } from './manage/shown-once.tsx';

/** The shell's first-send command, with the new key's token in place of the variable. */
const firstSendWith = (token: string) => firstSendCommand().replace('$MAILROOM_API_KEY', token);

/** The project's API keys: create one (its token shown once), list them, revoke with a confirmation. */
export function ApiKeysPage(_props: PageProps) {
  const pages = useCursorPages<ApiKey>((after) => getClient().apiKeys.list({ after, limit: 20 }), []);
  const [name, setName] = useState('');
  const [permission, setPermission] = useState<ApiKey['permission']>('full_access');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const create = useAction(() => getClient().apiKeys.create({ name, permission }));

  return (
    <>
      <PageHeading title="API keys" description="Applications send with a key; each key acts in this project only." />
      {created && (
        <ShownOnce title={`Key “${created.name}” created`} what="token" value={created.token} onDismiss={() => setCreated(null)}>
          <p>Send a first email with it (the sandbox address delivers without any network):</p>
          <pre>{firstSendWith(created.token)}</pre>
        </ShownOnce>
      )}
      <section class="panel" aria-labelledby="create-key-title">
        <h2 id="create-key-title">Create a key</h2>
        <form
          class="inline"
          onSubmit={async (event) => {
            event.preventDefault();
            const key = await create.run();
            if (!key) return;
            setCreated(key);
            setName('');
            pages.reload();
          }}
        >
          <Field label="Name">
            <input type="text" name="name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="Permission">
            <select name="permission" value={permission} onChange={(e) => setPermission(e.currentTarget.value as ApiKey['permission'])}>
              <option value="full_access">Full access</option>
              <option value="sending_access">Sending only</option>
            </select>
          </Field>
          <button type="submit" disabled={create.busy}>
            {create.busy ? 'Creating…' : 'Create key'}
          </button>
        </form>
        <ApiError error={create.error} />
      </section>
      <div class="wrap-cells">
        <DataTable
          caption="API keys"
          pages={pages}
          empty={
            <EmptyState title="No API keys yet">
              <p>Create a key above, then send a first email with it:</p>
              <pre>{firstSendCommand()}</pre>
            </EmptyState>
          }
          columns={[
            { header: 'Name', cell: (k) => k.name },
            { header: 'Permission', cell: (k) => (k.permission === 'full_access' ? 'Full access' : 'Sending only') },
            { header: 'Token', cell: (k) => <code>{k.tokenStart}…</code>, wide: true },
            { header: 'Created', cell: (k) => formatDateTime(k.createdAt), wide: true },
            { header: 'Last used', cell: (k) => formatDateTime(k.lastUsedAt), wide: true },
            {
              header: 'Actions',
              cell: (k) => (
                <ConfirmButton
                  label="Revoke"
                  ariaLabel={`Revoke key ${k.name}`}
                  title={`Revoke the key “${k.name}”?`}
                  confirmLabel="Revoke key"
                  action={() => getClient().apiKeys.revoke(k.id)}
                  onDone={pages.reload}
                >
                  <p>Applications using it are refused from now on. This cannot be undone.</p>
                </ConfirmButton>
              ),
            },
          ]}
        />
      </div>
    </>
  );
}
