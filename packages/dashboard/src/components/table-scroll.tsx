import type { ComponentChildren } from 'preact';

/**
 * A table's horizontal scroller for narrow screens: a labelled region that takes focus, so it
 * can be scrolled with the keyboard. Every table goes in one.
 */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    <section class="table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
