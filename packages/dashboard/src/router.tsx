import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Where the dashboard is mounted: every route below is under it (`/dashboard/emails`). */
export const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

/** The dashboard's own path of a location: `/dashboard/emails` → `/emails`. */
export function appPath(pathname: string = window.location.pathname): string {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  return rest === '' ? '/' : rest;
}

/** The full URL path of a dashboard path: `/emails` → `/dashboard/emails`. */
export const href = (path: string) => `${BASE}${path}`;

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

/** Goes to a dashboard path (`/emails?status=bounced`) without reloading; `replace` keeps history short. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = href(path);
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

/** The current location (path and query), re-rendering the caller when it changes. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: appPath(), query: new URLSearchParams(window.location.search) });
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const update = () => setLocation(read());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return location;
}

/** A route: a path pattern with `:name` parameters, e.g. `/emails/:id`. */
export interface RouteMatch {
  params: Record<string, string>;
}

/** The parameters of `path` if it matches `pattern`, else null. */
export function matchPath(pattern: string, path: string): RouteMatch | null {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const value = got[i] as string;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return null;
  }
  return { params };
}

interface LinkProps {
  to: string;
  children?: ComponentChildren;
  class?: string;
  'aria-current'?: 'page';
  'aria-label'?: string;
}

/** A link inside the dashboard: a real `<a href>` (opens in a new tab too), navigated in place on a plain click. */
export function Link({ to, children, ...rest }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a {...rest} href={href(to)} onClick={onClick}>
      {children}
    </a>
  );
}
