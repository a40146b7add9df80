import type { ComponentChildren } from 'preact';

/**
 * A form control with its visible label (the label wraps the control, so they are associated
 * without ids) and an optional hint under it.
 */
export function Field({ label, hint, children }: { label: string; hint?: ComponentChildren; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is `children`, inside the label.
    <label class="field">
      <span class="field-label">{label}</span>
      {children}
      {hint && <span class="field-hint muted small">{hint}</span>}
    </label>
  );
}
