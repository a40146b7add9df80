import type { ApiState } from '../use-api.ts';
import { ApiError } from './api-error.tsx';
import { Loading } from './loading.tsx';
import { PageHeading } from './page-heading.tsx';

/**
 * A detail page before its resource is here: the API's error (with a retry) under the page's
 * title, or loading. Render it while `state.data` is missing.
 */
export function PendingResource({ title, state }: { title: string; state: ApiState<unknown> }) {
  if (!state.error) return <Loading />;
  return (
    <>
      <PageHeading title={title} />
      <ApiError error={state.error} onRetry={state.reload} />
    </>
  );
}
