import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { CopyButton } from '../../components/copy-button.tsx';
import './manage.css';

/**
 * A secret the API answers only once (an API key's token, a webhook's signing secret): shown with
 * a copy button and a warning, focused when it appears so keyboard and screen-reader users land
 * on it, until the person says it is stored. When it goes ("Done, I have stored it"), the focus
 * returns to what had it before (the button that made the secret), or to the page's content: a
 * removed panel would otherwise leave it nowhere, at the document's start.
 */
export function ShownOnce({ title, what, value, children, onDismiss }: { title: string; what: string; value: string; children?: ComponentChildren; onDismiss: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const before = useRef<Element | null>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (active && active !== document.body && !heading.current?.closest('.shown-once')?.contains(active)) before.current = active;
    heading.current?.focus();
  }, [value]);
  /** "Done": the panel goes, and the focus with it would fall to the document's start. */
  const dismiss = () => {
    const back = before.current;
    if (back instanceof HTMLElement && back.isConnected && !back.matches(':disabled')) back.focus();
    else document.getElementById('main')?.focus({ preventScroll: true });
    onDismiss();
  };
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
      <button type="button" class="secondary small" onClick={dismiss}>
        Done, I have stored it
      </button>
    </section>
  );
}
