import type { Project } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ApiError } from '../components/api-error.tsx';
import { DetailsList } from '../components/details-list.tsx';
import { Field } from '../components/field.tsx';
import { Loading } from '../components/loading.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { formatDateTime } from '../format.ts';
import type { PageProps } from '../routes.tsx';
import { getClient, getSession, setProjects } from '../session.ts';
import { useAction, useApi } from '../use-api.ts';
import './manage/manage.css';

/** The project's name and its tracking defaults, saved with one PATCH. */
function SettingsForm({ project }: { project: Project }) {
  const [name, setName] = useState(project.name);
  const [trackOpens, setTrackOpens] = useState(project.trackOpens);
  const [trackClicks, setTrackClicks] = useState(project.trackClicks);
  const [saved, setSaved] = useState(false);
  const save = useAction(() => getClient().projects.update(project.id, { name, trackOpens, trackClicks }));
  const edited = () => setSaved(false);
  return (
    <form
      class="panel"
      aria-label="Project settings"
      onSubmit={async (event) => {
        event.preventDefault();
        const updated = await save.run();
        if (!updated) return;
        setSaved(true);
        // The switcher shows the new name at once.
        const session = getSession();
        if (session) setProjects(session.projects.map((p) => (p.id === updated.id ? { id: p.id, name: updated.name } : p)));
      }}
    >
      <Field label="Name">
        <input
          type="text"
          name="name"
          required
          maxLength={200}
          value={name}
          onInput={(e) => {
            setName(e.currentTarget.value);
            edited();
          }}
        />
      </Field>
      <fieldset class="choices">
        <legend>Tracking defaults</legend>
        <p class="muted small">Used by sends that do not set trackOpens or trackClicks themselves.</p>
        <label class="check">
          <input
            type="checkbox"
            name="trackOpens"
            checked={trackOpens}
            onChange={(e) => {
              setTrackOpens(e.currentTarget.checked);
              edited();
            }}
          />
          Track opens (a pixel in HTML mail)
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="trackClicks"
            checked={trackClicks}
            onChange={(e) => {
              setTrackClicks(e.currentTarget.checked);
              edited();
            }}
          />
          Track clicks (links rewritten through the tracking host)
        </label>
      </fieldset>
      <ApiError error={save.error} />
      <div class="form-actions">
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save settings'}
        </button>
        <span role="status" class="muted">
          {saved ? 'Saved.' : ''}
        </span>
      </div>
    </form>
  );
}

/** Project settings: the name (also in the switcher) and the default open and click tracking. */
export function SettingsPage(_props: PageProps) {
  const projectId = getSession()?.projectId ?? '';
  const project = useApi(() => getClient().projects.get(projectId), [projectId]);
  return (
    <>
      <PageHeading title="Project settings" />
      {project.error ? (
        <ApiError error={project.error} onRetry={project.reload} />
      ) : !project.data ? (
        <Loading />
      ) : (
        <>
          <DetailsList
            items={[
              ['Project id', <code key="id">{project.data.id}</code>],
              ['Created', formatDateTime(project.data.createdAt)],
              ['Last changed', formatDateTime(project.data.updatedAt)],
            ]}
          />
          <SettingsForm key={project.data.updatedAt} project={project.data} />
        </>
      )}
    </>
  );
}
