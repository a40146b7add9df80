import { EmptyState } from '../components/empty-state.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import type { PageProps } from '../routes.tsx';
import { Link } from '../router.tsx';

/** A dashboard path that names no page. */
export function NotFoundPage(_props: PageProps) {
  return (
    <>
      <PageHeading title="Page not found" />
      <EmptyState title="There is no such page">
        <p>
          <Link to="/">Go to the overview</Link>
        </p>
      </EmptyState>
    </>
  );
}
