import type { Email } from '@mailroom/client';

type Event = Email['events'][number];
import { formatDateTime } from '../format.ts';

/** The one line that says what happened to whom: recipient, SMTP reply, bounce, open, click. */
function eventSummary(event: Event): string {
  const data = event.data as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof data.recipient === 'string') parts.push(data.recipient);
  const smtp = data.smtp as { code?: number; message?: string } | undefined;
  if (smtp?.code) parts.push(`${smtp.code} ${smtp.message ?? ''}`.trim());
  const bounce = data.bounce as { type?: string; code?: string | null; message?: string } | undefined;
  if (bounce) parts.push(`${bounce.type ?? ''} bounce ${bounce.code ?? ''} ${bounce.message ?? ''}`.replace(/\s+/g, ' ').trim());
  const open = data.open as { is_bot?: boolean } | undefined;
  if (open?.is_bot) parts.push('by a bot or privacy proxy');
  const click = data.click as { link?: string; is_bot?: boolean } | undefined;
  if (click?.link) parts.push(`${click.link}${click.is_bot ? ' (bot)' : ''}`);
  return parts.join(' · ');
}

/** An email's events, oldest first, as a vertical list. */
export function Timeline({ events }: { events: readonly Event[] }) {
  if (events.length === 0) return <p class="muted">No event yet: the email is waiting to be sent.</p>;
  return (
    <ol class="timeline" aria-label="Timeline">
      {events.map((event) => (
        <li key={event.id}>
          <strong>{event.type}</strong> <time dateTime={event.created_at}>{formatDateTime(event.created_at)}</time>
          <div class="muted small">{eventSummary(event)}</div>
        </li>
      ))}
    </ol>
  );
}
