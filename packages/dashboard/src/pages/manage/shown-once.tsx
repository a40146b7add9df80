import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { CopyButton } from '../../components/copy-button.tsx';
import './manage.css';

/**
 * A secret the API answers only once (an API key's token, a webhook's signing secret): shown with
 * a copy button and a warning, focused when it appears so keyboard and screen-reader users land
 * on it, until the person says it is stored.
 */
export function ShownOnce({ title, what, value, children, onDismiss }: { title: string; what: string; value: string; children?: ComponentChildren; onDismiss: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [value]);
  return (
    <section class="shown-once" aria-labelledby="shown-once-title">
      <h2 id="shown-once-title" ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p>Copy the {what} now: it is shown only this once and cannot be read again.</p>
      <div class="secret-row">
        <code data-testid="shown-once-value">{value}</code>
        <CopyButton value={value} label={`Copy ${what}`} />
      </div>
      {children}
      <button type="button" class="secondary small" onClick={onDismiss}>
        Done, I have stored it
      </button>
    </section>
  );
}
