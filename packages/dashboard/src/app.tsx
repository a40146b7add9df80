import { useEffect, useRef } from 'preact/hooks';
import { Layout } from './components/layout.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { ROUTES } from './routes.tsx';
import { matchPath, navigate, useLocation } from './router.tsx';
import { setNotice, useSession } from './session.ts';

/** The dashboard: the page for the location, inside the signed-in layout unless it is public. */
export function App() {
  const { path } = useLocation();
  const session = useSession();
  const found = ROUTES.map((route) => ({ route, match: matchPath(route.path, path) })).find((r) => r.match);
  const needsSignIn = !session && !found?.route.public;
  const signedInOnPublic = session && found?.route.public;

  useEffect(() => {
    if (needsSignIn) {
      if (path !== '/') setNotice('Sign in to see this page.');
      navigate('/signin', { replace: true });
    } else if (signedInOnPublic) navigate('/', { replace: true });
  }, [needsSignIn, signedInOnPublic, path]);

  // After an in-app navigation (not the first load, where the skip link comes first), focus the
  // new page's main content, so keyboard and screen-reader users start there.
  const firstPath = useRef(path);
  useEffect(() => {
    if (path !== firstPath.current) document.getElementById('main')?.focus({ preventScroll: true });
    firstPath.current = '';
  }, [path]);

  if (needsSignIn || signedInOnPublic) return null;
  if (!found) return session ? <Layout session={session}>{<NotFoundPage params={{}} />}</Layout> : <NotFoundPage params={{}} />;
  const Page = found.route.page;
  const page = <Page key={session?.projectId} params={found.match?.params ?? {}} />;
  return found.route.public || !session ? <main id="main" class="public" tabIndex={-1}>{page}</main> : <Layout session={session}>{page}</Layout>;
}
