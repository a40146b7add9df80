import type { Page } from '@mailroom/client';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { expireSession, isSessionRejected } from './session.ts';

/** What a load is doing: `data` once it arrived, `error` when it failed, `loading` meanwhile. */
export interface ApiState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Loads again (after a change the page made). */
  reload: () => void;
}

/**
 * Runs `load` when the component mounts and whenever `deps` change; an answer that arrives after
 * a newer load started is dropped. A rejected session sends the person to sign-in.
 */
export function useApi<T>(load: () => Promise<T>, deps: readonly unknown[]): ApiState<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const ticket = ++latest.current;
    setState((s) => ({ data: s.data, error: undefined, loading: true }));
    load().then(
      (data) => ticket === latest.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => {
        if (ticket !== latest.current) return;
        if (isSessionRejected(error)) return expireSession();
        setState({ data: undefined, error, loading: false });
      },
    );
    // The caller names what the load depends on (`deps`), as with useEffect.
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

/**
 * Runs an action the person asked for (a form, a button): `run` answers its result, or undefined
 * after showing nothing but setting `error`. A rejected session sends the person to sign-in.
 */
export function useAction<A extends unknown[], T>(action: (...args: A) => Promise<T>) {
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const run = async (...args: A): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action(...args);
    } catch (err) {
      if (isSessionRejected(err)) expireSession();
      else setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, error, busy, clearError: () => setError(undefined) };
}

/** A list read page by page with the API's cursors: `next` goes `after` the last id, `previous` back. */
export interface CursorPages<T> extends ApiState<Page<T>> {
  pageNumber: number;
  hasPrevious: boolean;
  hasNext: boolean;
  next: () => void;
  previous: () => void;
}

/**
 * Pages through a list: `fetchPage(after)` asks for the page after a cursor (undefined: the
 * first). The cursors already passed are kept, so "Previous" returns to the same page. A change
 * of `deps` (a filter) starts again at the first page.
 */
export function useCursorPages<T extends { id: string }>(fetchPage: (after: string | undefined) => Promise<Page<T>>, deps: readonly unknown[]): CursorPages<T> {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  // A new filter starts from the first page.
  useEffect(() => setCursors([undefined]), deps);
  const after = cursors[cursors.length - 1];
  const loaded = useApi(async () => ({ after, page: await fetchPage(after) }), [...deps, after]);
  // Loading from the moment the cursor changes (the load itself starts in an effect, a render
  // later): in between, the page shown is not the one asked for.
  const state = { ...loaded, data: loaded.data?.page, loading: loaded.loading || (loaded.data !== undefined && loaded.data.after !== after) };
  const last = state.data?.data.at(-1);
  return {
    ...state,
    pageNumber: cursors.length,
    hasPrevious: cursors.length > 1,
    hasNext: Boolean(state.data?.hasMore && last),
    next: () => last && setCursors((c) => [...c, last.id]),
    previous: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
  };
}
