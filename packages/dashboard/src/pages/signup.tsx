import { Mailroom } from '@mailroom/client';
import { useState } from 'preact/hooks';
import { ApiError } from '../components/api-error.tsx';
import { Field } from '../components/field.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import type { PageProps } from '../routes.tsx';
import { Link } from '../router.tsx';
import { API_BASE_URL, startSession } from '../session.ts';
import { useAction } from '../use-api.ts';

/** Create an account and its first project (the new user owns it). */
export function SignUpPage(_props: PageProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [projectName, setProjectName] = useState('');
  const signUp = useAction(async () => {
    const signup = await Mailroom.signup({ email, password, projectName: projectName || undefined, baseUrl: API_BASE_URL });
    startSession({ sessionToken: signup.sessionToken, user: signup.user, projects: [signup.project] });
  });
  return (
    <div class="auth-card">
      <PageHeading title="Create your Mailroom account" />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void signUp.run();
        }}
      >
        <Field label="Email">
          <input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        <Field label="Password" hint="At least 8 characters.">
          <input type="password" name="password" autocomplete="new-password" required minLength={8} value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </Field>
        <Field label="Project name" hint="Optional: your first project. You can rename it later.">
          <input type="text" name="projectName" value={projectName} onInput={(e) => setProjectName(e.currentTarget.value)} />
        </Field>
        <ApiError error={signUp.error} />
        <button type="submit" disabled={signUp.busy}>
          {signUp.busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p>
        Already have an account? <Link to="/signin">Sign in</Link>
      </p>
    </div>
  );
}
