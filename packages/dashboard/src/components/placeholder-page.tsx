import type { PageProps } from '../routes.tsx';
import { EmptyState } from './empty-state.tsx';
import { PageHeading } from './page-heading.tsx';

/** A page not built yet: its heading, and where to do the same through the API meanwhile. */
export function placeholderPage(title: string, apiPath: string) {
  return function Placeholder(_props: PageProps) {
    return (
      <>
        <PageHeading title={title} />
        <EmptyState title="Not in the dashboard yet">
          <p>
            Until this page is built, use the API: <code>{apiPath}</code> (see <a href="/docs">the API reference</a>).
          </p>
        </EmptyState>
      </>
    );
  };
}
