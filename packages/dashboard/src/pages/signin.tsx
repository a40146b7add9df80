import { Mailroom } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ApiError } from '../components/api-error.tsx';
import { Field } from '../components/field.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import type { PageProps } from '../routes.tsx';
import { Link } from '../router.tsx';
import { API_BASE_URL, startSession, takeNotice } from '../session.ts';
import { useAction } from '../use-api.ts';

/** Sign in with email and password; the session lasts as long as the tab. */
export function SignInPage(_props: PageProps) {
  const [notice] = useState(takeNotice);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useAction(async () => {
    const login = await Mailroom.login({ email, password, baseUrl: API_BASE_URL });
    startSession({ sessionToken: login.sessionToken, user: login.user, projects: login.projects });
  });
  return (
    <div class="auth-card">
      <PageHeading title="Sign in to Mailroom" />
      {notice && (
        <p class="notice" role="alert">
          {notice}
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void signIn.run();
        }}
      >
        <Field label="Email">
          <input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        <Field label="Password">
          <input type="password" name="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </Field>
        <ApiError error={signIn.error} />
        <button type="submit" disabled={signIn.busy}>
          {signIn.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p>
        New here? <Link to="/signup">Create an account</Link>
      </p>
    </div>
  );
}
