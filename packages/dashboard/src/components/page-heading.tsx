import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

/** The page's `<h1>` (and the tab's title), an optional line under it, and actions on the right. */
export function PageHeading({ title, description, actions }: { title: string; description?: ComponentChildren; actions?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Mailroom`;
  }, [title]);
  return (
    <header class="page-heading">
      <div>
        <h1>{title}</h1>
        {description && <p class="muted">{description}</p>}
      </div>
      {actions && <div class="actions">{actions}</div>}
    </header>
  );
}
