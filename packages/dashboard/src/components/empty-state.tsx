import type { ComponentChildren } from 'preact';

/** Nothing to show yet: what this is, and what to do next (`children`: a command, a button). */
export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <section class="empty-state" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}
