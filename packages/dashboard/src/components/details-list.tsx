import type { ComponentChildren } from 'preact';

/** Label–value pairs as a description list (an email's fields, a key's properties). */
export function DetailsList({ items }: { items: readonly (readonly [string, ComponentChildren])[] }) {
  return (
    <dl class="details">
      {items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value === null || value === undefined || value === '' ? <span class="muted">—</span> : value}</dd>
        </div>
      ))}
    </dl>
  );
}
