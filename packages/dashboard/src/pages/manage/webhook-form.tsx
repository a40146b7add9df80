import type { Route, WebhookWithSecret } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ApiError } from '../../components/api-error.tsx';
import { Field } from '../../components/field.tsx';
import { getClient } from '../../session.ts';
import { useAction, useApi } from '../../use-api.ts';
import { ROUTE_SCOPED_TYPES, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types.ts';
import './manage.css';

/** Creates a webhook endpoint: URL, the event types (checkboxes), an optional route and description. */
export function WebhookForm({ onCreated }: { onCreated: (webhook: WebhookWithSecret) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>(['email.delivered', 'email.bounced', 'email.complained']);
  const [routeId, setRouteId] = useState('');
  const [description, setDescription] = useState('');
  const routes = useApi(() => getClient().routes.list({ limit: 100 }).then((page) => page.data as Route[]), []);
  const create = useAction(() =>
    getClient().webhooks.create({ url, events, routeId: routeId === '' ? null : routeId, description: description.trim() === '' ? null : description }),
  );
  const toggle = (type: WebhookEventType, on: boolean) => setEvents((list) => (on ? [...list.filter((t) => t !== type), type] : list.filter((t) => t !== type)));
  const offered = routeId === '' ? WEBHOOK_EVENT_TYPES : WEBHOOK_EVENT_TYPES.filter((t) => ROUTE_SCOPED_TYPES.includes(t));

  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const created = await create.run();
        if (!created) return;
        setUrl('');
        setDescription('');
        onCreated(created);
      }}
    >
      <Field label="Endpoint URL" hint="Where each event is POSTed, signed with the endpoint's secret.">
        <input type="url" name="url" required placeholder="https://app.example.com/hooks/mailroom" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </Field>
      <Field label="Route" hint="Optional: only mail received through this route (then only email.received applies).">
        <select
          name="routeId"
          value={routeId}
          onChange={(e) => {
            const next = e.currentTarget.value;
            setRouteId(next);
            if (next !== '') setEvents((list) => list.filter((t) => ROUTE_SCOPED_TYPES.includes(t)));
          }}
        >
          <option value="">Every event of the project</option>
          {(routes.data ?? []).map((r) => (
            <option key={r.id} value={r.id}>
              {r.name ? `${r.name} (${r.match})` : r.match}
            </option>
          ))}
        </select>
      </Field>
      <fieldset class="choices">
        <legend>Events</legend>
        <div class="choices-grid">
          {offered.map((type) => (
            <label key={type} class="check">
              <input type="checkbox" name="events" value={type} checked={events.includes(type)} onChange={(e) => toggle(type, e.currentTarget.checked)} />
              {type}
            </label>
          ))}
        </div>
      </fieldset>
      <Field label="Description">
        <input type="text" name="description" maxLength={500} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </Field>
      <ApiError error={create.error} />
      <div class="form-actions">
        <button type="submit" disabled={create.busy}>
          {create.busy ? 'Creating…' : 'Create webhook'}
        </button>
      </div>
    </form>
  );
}
