import type { ComponentChildren } from 'preact';
import { NAVIGATION } from '../routes.tsx';
import { Link, navigate, useLocation } from '../router.tsx';
import { getClient, type Session, setProjects, signOut, switchProject } from '../session.ts';
import { useApi } from '../use-api.ts';

/**
 * Acts in another project. On one resource's page (`/webhooks/wh_…`) it goes to the list of its
 * kind (`/webhooks`): the resource belongs to the project left, and the one chosen would only
 * answer that it was not found.
 */
function changeProject(projectId: string, path: string): void {
  switchProject(projectId);
  const [section, resource] = path.split('/').filter(Boolean);
  if (section && resource) navigate(`/${section}`, { replace: true });
}

/**
 * The signed-in frame: a skip link, the header (project switcher, the user, "Sign out"), the
 * navigation landmark with every page, and the page itself in `<main id="main">`.
 */
export function Layout({ session, children }: { session: Session; children: ComponentChildren }) {
  const { path } = useLocation();
  // The projects as they are now (renamed, or added by an owner since sign-in); this also finds
  // out at once when the session is no longer accepted.
  useApi(async () => {
    const projects = (await getClient().projects.list().toArray(1000)).map(({ id, name }) => ({ id, name }));
    const changed = JSON.stringify(projects) !== JSON.stringify(session.projects);
    if (changed && projects.length > 0) setProjects(projects);
  }, [session.sessionToken]);
  return (
    <div class="layout">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link to="/" class="brand">
          Mailroom
        </Link>
        <label class="project-switcher">
          <span>Project</span>
          <select value={session.projectId} onChange={(event) => changeProject(event.currentTarget.value, path)}>
            {session.projects.map((project) => (
              <option key={project.id} value={project.id}>
                {project.name}
              </option>
            ))}
          </select>
        </label>
        <span class="user muted small">{session.user.email}</span>
        <button type="button" class="secondary small" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav class="sidebar" aria-label="Dashboard">
        <ul>
          {NAVIGATION.map((item) => {
            const current = item.path === '/' ? path === '/' : path === item.path || path.startsWith(`${item.path}/`);
            return (
              <li key={item.path}>
                <Link to={item.path} aria-current={current ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
