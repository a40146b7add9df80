import { Mailroom, MailroomError } from '@mailroom/client';
import { useEffect, useState } from 'preact/hooks';
import { navigate } from './router.tsx';

/** A project the signed-in user belongs to, as the switcher lists it. */
export interface SessionProject {
  id: string;
  name: string;
}

/** What the tab remembers of the sign-in: `sessionStorage`, so it ends with the tab. */
export interface Session {
  sessionToken: string;
  user: { id: string; email: string };
  projects: SessionProject[];
  projectId: string;
}

const STORAGE_KEY = 'mailroom.session';
const NOTICE_KEY = 'mailroom.notice';

/** The API is the origin that serves the dashboard (same origin: no CORS). */
export const API_BASE_URL = window.location.origin;

let current: Session | null = readStored();
let client: Mailroom | null = null;
const listeners = new Set<() => void>();

function readStored(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    const parsed = raw ? (JSON.parse(raw) as Session) : null;
    return typeof parsed?.sessionToken === 'string' && typeof parsed.projectId === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

function publish(next: Session | null): void {
  current = next;
  client = null;
  if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  else sessionStorage.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener();
}

/** The session of this tab, or null when signed out. */
export function getSession(): Session | null {
  return current;
}

/** The session, re-rendering the caller when it changes (sign-in, project switch, sign-out). */
export function useSession(): Session | null {
  const [session, setSession] = useState(current);
  useEffect(() => {
    const update = () => setSession(current);
    listeners.add(update);
    update();
    return () => void listeners.delete(update);
  }, []);
  return session;
}

/** The client of the signed-in session, acting in the chosen project. Throws when signed out. */
export function getClient(): Mailroom {
  if (!current) throw new Error('Not signed in.');
  client ??= new Mailroom({ sessionToken: current.sessionToken, projectId: current.projectId, baseUrl: API_BASE_URL });
  return client;
}

/** Starts the tab's session (after sign-in or sign-up); the first project is chosen unless one is given. */
export function startSession(init: { sessionToken: string; user: { id: string; email: string }; projects: SessionProject[]; projectId?: string }): void {
  const projectId = init.projectId ?? init.projects[0]?.id;
  if (!projectId) throw new Error('This account belongs to no project yet: ask a project owner to add you.');
  publish({ sessionToken: init.sessionToken, user: init.user, projects: init.projects, projectId });
}

/** Switches the project the dashboard acts in. */
export function switchProject(projectId: string): void {
  if (current?.projects.some((p) => p.id === projectId)) publish({ ...current, projectId });
}

/** Replaces the switcher's list (after creating or renaming a project). */
export function setProjects(projects: SessionProject[]): void {
  if (current) publish({ ...current, projects });
}

// Each of sign-out's two tries waits this long (ms) for the revocation, then it leaves all the same.
const SIGN_OUT_WAIT_MS = 5_000;

/**
 * Signs out: revokes the token on the server, then forgets the session here. In this order, so
 * that "You are signed out" is shown once the token no longer works (and a tab closed at once
 * cannot cut the revocation short); a server that cannot be reached or does not answer in time
 * does not keep the person in.
 */
export async function signOut(): Promise<void> {
  const signedIn = current ? getClient() : null;
  await signedIn?.auth.logout({ timeoutMs: SIGN_OUT_WAIT_MS, maxRetries: 1 }).catch(() => undefined);
  leave('You are signed out.');
}

/** Forgets a session the API no longer accepts and returns to sign-in with a message. */
export function expireSession(message = 'Your session has expired or was revoked. Sign in again.'): void {
  leave(message);
}

/** Back to sign-in with a message. In this order, before any re-render: the sign-in page reads the notice as it mounts. */
function leave(notice: string): void {
  setNotice(notice);
  publish(null);
  navigate('/signin', { replace: true });
}

/** True for the API's answer to a session it no longer accepts (401 `invalid_session`). */
export function isSessionRejected(error: unknown): boolean {
  return error instanceof MailroomError && error.statusCode === 401 && error.name === 'invalid_session';
}

/** A one-time message for the sign-in page (why the person was sent there). */
export function setNotice(message: string): void {
  sessionStorage.setItem(NOTICE_KEY, message);
}

/** The pending notice, removed as it is read. */
export function takeNotice(): string | null {
  const message = sessionStorage.getItem(NOTICE_KEY);
  sessionStorage.removeItem(NOTICE_KEY);
  return message;
}
