import type { ComponentChildren } from 'preact';

export interface ActionButtonProps {
  /** The action is running: clicks are ignored and the button says so. */
  busy: boolean;
  onClick: () => void;
  children: ComponentChildren;
  class?: string;
  'aria-label'?: string;
}

/**
 * A button that runs an action in place (send a test, verify now, download). While the action
 * runs it is `aria-disabled` and ignores clicks instead of being `disabled`: a disabled button
 * loses the keyboard focus to the page's start, so after each action a keyboard user would have
 * to find their way back.
 */
export function ActionButton({ busy, onClick, children, class: className, 'aria-label': ariaLabel }: ActionButtonProps) {
  return (
    <button type="button" class={className} aria-label={ariaLabel} aria-disabled={busy} onClick={() => !busy && onClick()}>
      {children}
    </button>
  );
}
