import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../components/api-error.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { useAction } from '../../use-api.ts';
import './manage.css';

export interface ConfirmButtonProps<T> {
  /** The button's text. */
  label: string;
  /** The button's accessible name when the text alone is ambiguous in a list ("Revoke key ci"). */
  ariaLabel?: string;
  /** The dialog's question and its confirm button. */
  title: string;
  confirmLabel: string;
  children?: ComponentChildren;
  /** What confirming does; its result goes to `onDone`. */
  action: () => Promise<T>;
  onDone: (result: T) => void;
  /** A small button (in a table row); false beside full-size buttons. */
  small?: boolean;
}

/**
 * A destructive button that asks first: the shell's ConfirmDialog, rendered only while open (so a
 * list of rows never holds several dialogs with the same ids). A refusal by the API is shown in
 * the dialog as the contract's `message`; focus goes back to the button when the dialog closes,
 * or to the page's main content when the button went away with what it removed.
 */
export function ConfirmButton<T>({ label, ariaLabel, title, confirmLabel, children, action, onDone, small = true }: ConfirmButtonProps<T>) {
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const act = useAction(action);
  const close = () => {
    setOpen(false);
    act.clearError();
  };
  // Once the dialog is gone (the page behind it is no longer inert), focus returns to the button,
  // whether the person cancelled or confirmed: a removed modal dialog leaves the focus nowhere.
  // Unless what the action showed took it already (a new secret, shown once).
  const wasOpen = useRef(false);
  useEffect(() => {
    const nowhere = !document.activeElement || document.activeElement === document.body;
    if (wasOpen.current && !open && nowhere) opener.current?.focus();
    wasOpen.current = open;
  }, [open]);
  // When what the button acted on disappears with it (a revoked key's row, a removed member),
  // the focus goes to the page's main content instead of falling back to the document's start.
  // (The list may reload before the focus was given back to the button: then it is nowhere.)
  const done = useRef(false);
  useEffect(() => {
    const button = opener.current;
    return () => {
      const nowhere = !document.activeElement || document.activeElement === document.body;
      if (button === document.activeElement || (done.current && nowhere)) document.getElementById('main')?.focus({ preventScroll: true });
    };
  }, []);
  return (
    <>
      <button type="button" class={small ? 'secondary small' : 'secondary'} ref={opener} aria-label={ariaLabel} onClick={() => setOpen(true)}>
        {label}
      </button>
      {open && (
        <ConfirmDialog
          open
          title={title}
          confirmLabel={confirmLabel}
          danger
          busy={act.busy}
          onCancel={close}
          onConfirm={async () => {
            const result = await act.run();
            if (result === undefined) return;
            done.current = true;
            setOpen(false);
            onDone(result);
          }}
        >
          {children}
          <ApiError error={act.error} />
        </ConfirmDialog>
      )}
    </>
  );
}
