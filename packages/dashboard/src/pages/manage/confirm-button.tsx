import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
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
 * the dialog as the contract's `message`; focus goes back to the button when the dialog closes.
 */
export function ConfirmButton<T>({ label, ariaLabel, title, confirmLabel, children, action, onDone, small = true }: ConfirmButtonProps<T>) {
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const act = useAction(action);
  const close = () => {
    setOpen(false);
    act.clearError();
    opener.current?.focus();
  };
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
