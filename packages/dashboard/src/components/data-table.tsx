import type { ComponentChildren } from 'preact';
import type { CursorPages } from '../use-api.ts';
import { ApiError } from './api-error.tsx';
import { Loading } from './loading.tsx';
import { TableScroll } from './table-scroll.tsx';

/** One column: its header and how to show a row's cell. */
export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** Hidden on narrow screens (the row stays readable without it). */
  wide?: boolean;
}

export interface DataTableProps<T extends { id: string }> {
  /** Names the table for screen readers (visually hidden). */
  caption: string;
  columns: readonly Column<T>[];
  pages: CursorPages<T>;
  /** What to show when the first page is empty: an EmptyState that says what to do next. */
  empty: ComponentChildren;
}

/**
 * A list from the API as a table, one page at a time, with "Previous"/"Next" over the API's
 * cursors; its loading state, its error (the API's message, with "Try again") and its empty state.
 */
export function DataTable<T extends { id: string }>({ caption, columns, pages, empty }: DataTableProps<T>) {
  if (pages.error) return <ApiError error={pages.error} onRetry={pages.reload} />;
  if (!pages.data) return <Loading />;
  const rows = pages.data.data;
  if (rows.length === 0 && !pages.hasPrevious) return <>{empty}</>;
  return (
    <div class="data-table">
      <TableScroll label={caption}>
        <table aria-busy={pages.loading}>
          <caption class="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column.header} scope="col" class={column.wide ? 'wide' : undefined}>
                  {column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                {columns.map((column) => (
                  <td key={column.header} class={column.wide ? 'wide' : undefined}>
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Pager pages={pages} />
    </div>
  );
}

/**
 * "Previous" and "Next" over cursor pages, with the page number. A button that cannot act now
 * (no page that way, or a page loading) is `aria-disabled`, not `disabled`: a disabled button
 * drops the keyboard focus to the page's start, so a keyboard user paging through a list would
 * lose their place at every step.
 */
export function Pager<T extends { id: string }>({ pages }: { pages: CursorPages<T> }) {
  // Kept while a page loads: returning to the first page, the last page's answer (no more) is
  // still what there is, and removing the bar would take the focused "Previous" with it.
  if (!pages.hasPrevious && !pages.hasNext && !pages.loading) return null;
  const canPrevious = pages.hasPrevious && !pages.loading;
  const canNext = pages.hasNext && !pages.loading;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="secondary" onClick={() => canPrevious && pages.previous()} aria-disabled={!canPrevious}>
        Previous
      </button>
      <span class="muted" aria-live="polite">
        Page {pages.pageNumber}
      </span>
      <button type="button" class="secondary" onClick={() => canNext && pages.next()} aria-disabled={!canNext}>
        Next
      </button>
    </nav>
  );
}
