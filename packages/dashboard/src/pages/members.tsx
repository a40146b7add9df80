import type { Member } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ApiError } from '../components/api-error.tsx';
import { DataTable } from '../components/data-table.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { Field } from '../components/field.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { formatDateTime } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { getClient, getSession } from '../session.ts';
import { useAction, useCursorPages } from '../use-api.ts';
import { ConfirmButton } from './manage/confirm-button.tsx';

/** Adds an existing user, by email, with a role (owners only). */
function AddMemberForm({ projectId, onAdded }: { projectId: string; onAdded: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Member['role']>('member');
  const add = useAction(() => getClient().members.add(projectId, { email, role }));
  return (
    <section class="panel" aria-labelledby="add-member-title">
      <h2 id="add-member-title">Add a member</h2>
      <form
        class="inline"
        onSubmit={async (event) => {
          event.preventDefault();
          if (!(await add.run())) return;
          setEmail('');
          onAdded();
        }}
      >
        <Field label="Email" hint="Of someone who already has a Mailroom account.">
          <input type="email" name="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        <Field label="Role">
          <select name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as Member['role'])}>
            <option value="member">Member</option>
            <option value="owner">Owner</option>
          </select>
        </Field>
        <button type="submit" disabled={add.busy}>
          {add.busy ? 'Adding…' : 'Add member'}
        </button>
      </form>
      <ApiError error={add.error} />
    </section>
  );
}

/** An owner's control for one member's role; the API refuses demoting the last owner (409), shown as its message. */
function RoleSelect({ projectId, member, onChanged }: { projectId: string; member: Member; onChanged: () => void }) {
  const change = useAction((role: Member['role']) => getClient().members.update(projectId, member.id, { role }));
  return (
    <>
      <select
        aria-label={`Role of ${member.email}`}
        value={member.role}
        disabled={change.busy}
        onChange={async (e) => {
          const select = e.currentTarget;
          if (await change.run(select.value as Member['role'])) onChanged();
          else select.value = member.role;
        }}
      >
        <option value="member">Member</option>
        <option value="owner">Owner</option>
      </select>
      <ApiError error={change.error} />
    </>
  );
}

/**
 * The project's people. Everyone sees the list; adding, removing and changing roles are for owners (the API
 * refuses others), so a member sees why the actions are not there.
 */
export function MembersPage(_props: PageProps) {
  const session = getSession();
  const projectId = session?.projectId ?? '';
  // The API answers every member on one page (hasMore is always false).
  const pages = useCursorPages<Member>((after) => getClient().members.list(projectId, { after }), [projectId]);
  const me = pages.data?.data.find((m) => m.id === session?.user.id);
  const isOwner = me?.role === 'owner';
  return (
    <>
      <PageHeading title="Members" description="The people who can sign in to this project." />
      {isOwner && <AddMemberForm projectId={projectId} onAdded={pages.reload} />}
      {me && !isOwner && (
        <p class="notice" role="note">
          Only the project's owners can add or remove members or change their roles. Ask an owner to change who has access.
        </p>
      )}
      <div class="wrap-cells">
        <DataTable
          caption="Members"
          pages={pages}
          empty={<EmptyState title="No members" />}
          columns={[
            { header: 'Email', cell: (m) => (m.id === session?.user.id ? `${m.email} (you)` : m.email) },
            {
              header: 'Role',
              cell: (m: Member) =>
                isOwner ? <RoleSelect projectId={projectId} member={m} onChanged={pages.reload} /> : m.role === 'owner' ? 'Owner' : 'Member',
            },
            { header: 'Joined', cell: (m) => formatDateTime(m.createdAt), wide: true },
            ...(isOwner
              ? [
                  {
                    header: 'Actions',
                    cell: (m: Member) => (
                      <ConfirmButton
                        label="Remove"
                        ariaLabel={`Remove ${m.email}`}
                        title={`Remove ${m.email} from the project?`}
                        confirmLabel="Remove member"
                        action={() => getClient().members.remove(projectId, m.id)}
                        onDone={pages.reload}
                      >
                        <p>They can no longer sign in to this project. Their account stays.</p>
                      </ConfirmButton>
                    ),
                  },
                ]
              : []),
          ]}
        />
      </div>
    </>
  );
}
